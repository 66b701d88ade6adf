package io.vecruntime.parquet;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;

/**
 * Loads libvecruntime once per JVM: from the platform folder inside the jar
 * ({@code linux-x86_64/libvecruntime.so}), extracted to a temporary file. On x86-64 Linux the jar
 * also holds a build for x86-64-v3 CPUs ({@code linux-x86_64/x86-64-v3/}: AVX2, BMI2, FMA...),
 * taken when {@code /proc/cpuinfo} shows every one of those features; the system property
 * {@code vecruntime.native.cpu} ({@code auto}, {@code baseline} or {@code x86-64-v3}) chooses
 * instead. The system property {@code vecruntime.library.path} names a library file to load
 * instead of either (development builds).
 */
public final class NativeLibrary {
  public static final String PATH_PROPERTY = "vecruntime.library.path";
  public static final String CPU_PROPERTY = "vecruntime.native.cpu";
  public static final String BASELINE = "baseline";
  public static final String X86_64_V3 = "x86-64-v3";

  /**
   * The {@code /proc/cpuinfo} flags of the x86-64-v3 level (the v2 ones included), as Linux names
   * them; the kernel leaves out AVX flags when it does not enable AVX state.
   */
  static final List<String> X86_64_V3_FLAGS = List.of("cx16", "lahf_lm", "popcnt", "sse4_1",
      "sse4_2", "ssse3", "avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave");

  private static volatile boolean loaded;
  private static Throwable failure;
  private static volatile String loadedBuild;

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
        loadedBuild = override;
      } else {
        String platform = platform();
        String requested = System.getProperty(CPU_PROPERTY);
        String build = build(platform, requested, NativeLibrary::cpuFlags);
        boolean named = requested != null && requested.trim().equalsIgnoreCase(X86_64_V3);
        if (build.equals(X86_64_V3) && !named && !hasResource(platform, build)) {
          build = BASELINE; // a jar built without it (asked for by name, extract says it lacks it)
        }
        System.load(extract(platform, build).toString());
        loadedBuild = build;
      }
      loaded = true;
    } catch (RuntimeException | UnsatisfiedLinkError | IOException e) {
      failure = e;
      throw e instanceof VecRuntimeException
          ? (VecRuntimeException) e
          : new VecRuntimeException("cannot load the vecruntime native library: " + e.getMessage(), e);
    }
  }

  /** Which build was loaded: baseline, x86-64-v3, or the file named by the path property. */
  public static String loadedBuild() {
    load();
    return loadedBuild;
  }

  /**
   * The build to load on {@code platform}: as {@code requested} (the CPU property; null or
   * {@code auto} to decide from the CPU's flags). Asking for x86-64-v3 on a CPU without its
   * features is an error: that code would stop the JVM with an illegal instruction.
   */
  static String build(String platform, String requested, java.util.function.Supplier<String> flags) {
    String r = requested == null ? "auto" : requested.trim().toLowerCase(Locale.ROOT);
    boolean x86 = platform.equals("linux-x86_64");
    switch (r) {
      case "auto":
      case "":
        return x86 && hasX86_64V3(flags.get()) ? X86_64_V3 : BASELINE;
      case BASELINE:
        return BASELINE;
      case X86_64_V3:
        if (!x86 || !hasX86_64V3(flags.get())) {
          throw new VecRuntimeException("-D" + CPU_PROPERTY + "=" + X86_64_V3 + " asked for, but "
              + "this CPU or platform (" + platform + ") lacks its features ("
              + String.join(" ", X86_64_V3_FLAGS) + "); use auto or " + BASELINE);
        }
        return X86_64_V3;
      default:
        throw new VecRuntimeException("-D" + CPU_PROPERTY + "=" + requested + " is not one of auto, "
            + BASELINE + ", " + X86_64_V3);
    }
  }

  /** Whether the first {@code flags} line of a {@code /proc/cpuinfo} text has every v3 flag. */
  static boolean hasX86_64V3(String cpuinfo) {
    if (cpuinfo == null) {
      return false;
    }
    for (String line : cpuinfo.split("\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && line.substring(0, colon).trim().equals("flags")) {
        List<String> have = List.of(line.substring(colon + 1).trim().split("\\s+"));
        return have.containsAll(X86_64_V3_FLAGS);
      }
    }
    return false;
  }

  private static String cpuFlags() {
    try {
      return Files.readString(Path.of("/proc/cpuinfo"));
    } catch (IOException | RuntimeException e) {
      return null; // then the baseline build
    }
  }

  private static String resource(String platform, String build) {
    return "/" + platform + (build.equals(X86_64_V3) ? "/" + X86_64_V3 : "") + "/"
        + libraryFileName(platform);
  }

  private static boolean hasResource(String platform, String build) {
    return NativeLibrary.class.getResource(resource(platform, build)) != null;
  }

  static Path extract(String platform, String build) throws IOException {
    String resource = resource(platform, build);
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
