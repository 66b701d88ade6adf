//! Every entry point runs through [`entry`]: errors and panics become Java exceptions, so
//! nothing native unwinds into the JVM.

use jni::JNIEnv;
use std::panic::{catch_unwind, AssertUnwindSafe};
use vecruntime_parquet::Error;

const ILLEGAL_ARGUMENT: &str = "java/lang/IllegalArgumentException";
const ILLEGAL_STATE: &str = "java/lang/IllegalStateException";
const VECRUNTIME: &str = "io/vecruntime/parquet/VecRuntimeException";
const REFUSED: &str = "io/vecruntime/parquet/ValueRefusedException";

/// What an entry point can fail with, by the Java exception it becomes.
#[derive(Debug)]
pub enum JniError {
    /// Bad arguments or input data: IllegalArgumentException.
    Argument(String),
    /// Closed or failed handle, freed buffer: IllegalStateException.
    State(String),
    /// Anything else (writer failure, internal error): VecRuntimeException.
    Runtime(String),
    /// A value the configured rules refuse (EXCEPTION rebase mode): ValueRefusedException.
    Refused(String),
    /// A Java exception is already pending (a JNI call failed); leave it to the caller.
    Pending,
}

pub type JniResult<T> = Result<T, JniError>;

impl From<Error> for JniError {
    fn from(e: Error) -> Self {
        let msg = e.to_string();
        match e {
            Error::Schema(_)
            | Error::InvalidInput { .. }
            | Error::TooLarge { .. }
            | Error::Options(_) => JniError::Argument(msg),
            Error::State(_) => JniError::State(msg),
            Error::Refused { .. } => JniError::Refused(msg),
            Error::Io(_) => JniError::Runtime(msg),
        }
    }
}

impl From<jni::errors::Error> for JniError {
    fn from(e: jni::errors::Error) -> Self {
        match e {
            jni::errors::Error::JavaException => JniError::Pending,
            other => JniError::Runtime(format!("JNI call failed: {other}")),
        }
    }
}

pub fn argument(msg: impl Into<String>) -> JniError {
    JniError::Argument(msg.into())
}

/// Runs an entry point's body; returns `fallback` to Java after throwing when it fails.
pub fn entry<'l, T>(
    env: &mut JNIEnv<'l>,
    fallback: T,
    body: impl FnOnce(&mut JNIEnv<'l>) -> JniResult<T>,
) -> T {
    let outcome = catch_unwind(AssertUnwindSafe(|| body(env)));
    let err = match outcome {
        Ok(Ok(v)) => return v,
        Ok(Err(e)) => e,
        Err(panic) => JniError::Runtime(format!(
            "internal error in the native writer: {}",
            panic_message(&panic)
        )),
    };
    throw(env, err);
    fallback
}

pub fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".to_string()
    }
}

fn throw(env: &mut JNIEnv, err: JniError) {
    let (class, msg) = match err {
        JniError::Pending => return,
        JniError::Argument(m) => (ILLEGAL_ARGUMENT, m),
        JniError::State(m) => (ILLEGAL_STATE, m),
        JniError::Runtime(m) => (VECRUNTIME, m),
        JniError::Refused(m) => (REFUSED, m),
    };
    if env.exception_check().unwrap_or(true) {
        return;
    }
    if env.throw_new(class, &msg).is_err() {
        // The exception class could not be loaded: fall back to a JDK class.
        let _ = env.exception_clear();
        let _ = env.throw_new("java/lang/RuntimeException", &msg);
    }
}
