//! Typed errors: every problem with the caller's input names the column it is in.

use std::fmt;

#[derive(Debug)]
pub enum Error {
    /// The schema itself is not valid.
    Schema(String),
    /// A batch or buffer does not match the schema or is malformed.
    InvalidInput { column: String, message: String },
    /// A value or page exceeds what Parquet can represent.
    TooLarge { column: String, message: String },
    /// A valid value the caller's rules refuse to write (Spark's EXCEPTION rebase mode).
    Refused { column: String, message: String },
    /// Options out of range.
    Options(String),
    /// The writer was used after close or after a failed write.
    State(String),
    /// The sink failed.
    Io(std::io::Error),
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub(crate) fn input(column: &str, message: impl Into<String>) -> Self {
        Error::InvalidInput {
            column: column.to_string(),
            message: message.into(),
        }
    }

    pub(crate) fn too_large(column: &str, message: impl Into<String>) -> Self {
        Error::TooLarge {
            column: column.to_string(),
            message: message.into(),
        }
    }

    /// The column the error is about, where there is one.
    pub fn column(&self) -> Option<&str> {
        match self {
            Error::InvalidInput { column, .. }
            | Error::TooLarge { column, .. }
            | Error::Refused { column, .. } => Some(column),
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Schema(m) => write!(f, "invalid schema: {m}"),
            Error::InvalidInput { column, message } => write!(f, "column '{column}': {message}"),
            Error::TooLarge { column, message } | Error::Refused { column, message } => {
                write!(f, "column '{column}': {message}")
            }
            Error::Options(m) => write!(f, "invalid writer options: {m}"),
            Error::State(m) => write!(f, "{m}"),
            Error::Io(e) => write!(f, "output stream failed: {e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}
