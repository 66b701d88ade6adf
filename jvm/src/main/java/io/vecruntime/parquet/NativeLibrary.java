package io.vecruntime.parquet;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Loads libvecruntime once per JVM: from the platform folder inside the jar
 * ({@code linux-x86_64/libvecruntime.so}), extracted to a temporary file. The system property
 * {@code vecruntime.library.path} names a library file to load instead (development builds).
 */
public final class NativeLibrary {
  public static final String PATH_PROPERTY = "vecruntime.library.path";

  private static volatile boolean loaded;
  private static Throwable failure;

  private NativeLibrary() {}

  /** The platform folder this JVM looks in, such as {@code linux-x86_64}. */
  public static String platform() {
    return platform(System.getProperty("os.name"), System.getProperty("os.arch"));
  }

  static String platform(String osName, String osArch) {
    String os = osName.toLowerCase(Locale.ROOT);
    String osPart =
        os.startsWith("linux") ? "linux" : os.startsWith("mac") || os.startsWith("darwin") ? "darwin"
            : os.startsWith("windows") ? "windows" : os.replaceAll("[^a-z0-9]", "");
    String arch = osArch.toLowerCase(Locale.ROOT);
    String archPart =
        arch.equals("amd64") || arch.equals("x86_64") ? "x86_64"
            : arch.equals("aarch64") || arch.equals("arm64") ? "aarch64" : arch;
    return osPart + "-" + archPart;
  }

  static String libraryFileName(String platform) {
    if (platform.startsWith("darwin")) {
      return "libvecruntime.dylib";
    }
    if (platform.startsWith("windows")) {
      return "vecruntime.dll";
    }
    return "libvecruntime.so";
  }

  /** Loads the library if it is not loaded yet; throws the same error on every call if it failed. */
  public static synchronized void load() {
    if (loaded) {
      return;
    }
    if (failure != null) {
      throw new VecRuntimeException(failure.getMessage(), failure);
    }
    try {
      String override = System.getProperty(PATH_PROPERTY);
      if (override != null && !override.isEmpty()) {
        System.load(Path.of(override).toAbsolutePath().toString());
      } else {
        System.load(extract(platform()).toString());
      }
      loaded = true;
    } catch (RuntimeException | UnsatisfiedLinkError | IOException e) {
      failure = e;
      throw e instanceof VecRuntimeException
          ? (VecRuntimeException) e
          : new VecRuntimeException("cannot load the vecruntime native library: " + e.getMessage(), e);
    }
  }

  static Path extract(String platform) throws IOException {
    String resource = "/" + platform + "/" + libraryFileName(platform);
    try (InputStream in = NativeLibrary.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new VecRuntimeException(
            "vecruntime has no native library for platform '" + platform + "': the jar lacks "
                + resource + ". Build it on that platform (cargo build --release -p vecruntime-jni, "
                + "then mvn package) or set -D" + PATH_PROPERTY + "=/path/to/"
                + libraryFileName(platform));
      }
      Path dir = Files.createTempDirectory("vecruntime-");
      Path file = dir.resolve(libraryFileName(platform));
      Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
      file.toFile().deleteOnExit();
      dir.toFile().deleteOnExit();
      return file;
    }
  }
}
