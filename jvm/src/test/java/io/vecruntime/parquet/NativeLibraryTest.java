package io.vecruntime.parquet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which native build the loader takes, and that both builds write the same bytes. */
class NativeLibraryTest {
  @TempDir Path dir;

  // Flags lines of real CPUs (shortened to what matters plus some others).
  static final String HASWELL = "processor\t: 0\nflags\t\t: fpu sse sse2 ssse3 fma cx16 sse4_1 "
      + "sse4_2 movbe popcnt xsave avx f16c lahf_lm abm bmi1 avx2 bmi2\n";
  static final String SANDY_BRIDGE = "flags\t\t: fpu sse sse2 ssse3 cx16 sse4_1 sse4_2 popcnt "
      + "xsave avx lahf_lm\n";

  @Test
  void theX86_64V3BuildOnlyWhereTheCpuHasEveryFeature() {
    assertTrue(NativeLibrary.hasX86_64V3(HASWELL));
    assertFalse(NativeLibrary.hasX86_64V3(SANDY_BRIDGE), "AVX without AVX2");
    assertFalse(NativeLibrary.hasX86_64V3(HASWELL.replace(" bmi2", "")), "no BMI2");
    assertFalse(NativeLibrary.hasX86_64V3("model name\t: x\n"), "no flags line");
    assertFalse(NativeLibrary.hasX86_64V3(null));

    assertEquals("x86-64-v3", NativeLibrary.build("linux-x86_64", null, () -> HASWELL));
    assertEquals("x86-64-v3", NativeLibrary.build("linux-x86_64", "AUTO", () -> HASWELL));
    assertEquals("baseline", NativeLibrary.build("linux-x86_64", null, () -> SANDY_BRIDGE));
    assertEquals("baseline", NativeLibrary.build("linux-x86_64", "baseline", () -> HASWELL));
    assertEquals("baseline", NativeLibrary.build("linux-aarch64", null, () -> HASWELL));
    VecRuntimeException forced = assertThrows(VecRuntimeException.class,
        () -> NativeLibrary.build("linux-x86_64", "x86-64-v3", () -> SANDY_BRIDGE));
    assertTrue(forced.getMessage().contains("lacks its features"), forced.getMessage());
    VecRuntimeException bad = assertThrows(VecRuntimeException.class,
        () -> NativeLibrary.build("linux-x86_64", "avx512", () -> HASWELL));
    assertTrue(bad.getMessage().contains("vecruntime.native.cpu=avx512"), bad.getMessage());
  }

  @Test
  void bothBuildsWriteTheSameBytesAndAutoTakesTheOneThisCpuRuns() throws Exception {
    String cpuinfo = Files.readString(Path.of("/proc/cpuinfo"));
    boolean v3 = NativeLibrary.hasX86_64V3(cpuinfo)
        && NativeLibrary.platform().equals("linux-x86_64");
    Path auto = run("auto");
    assertEquals(v3 ? "x86-64-v3" : "baseline", build(auto));
    Path baseline = run("baseline");
    assertEquals("baseline", build(baseline));
    // On a CPU without the v3 features there is only one build to run; auto took baseline.
    Path other = v3 ? run("x86-64-v3") : auto;
    List<String> files = new ArrayList<>();
    try (Stream<Path> s = Files.list(baseline)) {
      s.filter(p -> p.toString().endsWith(".parquet")).forEach(p -> files.add(p.getFileName().toString()));
    }
    assertEquals(Codec.values().length + 1, files.size(), files.toString());
    for (String f : files) {
      byte[] b = Files.readAllBytes(baseline.resolve(f));
      assertTrue(b.length > 1000, f);
      assertArrayEquals(b, Files.readAllBytes(other.resolve(f)), f + " differs between builds");
    }
    // And the files are what parquet-java reads back.
    assertEquals(50_000, TestData.read(baseline.resolve("rows.parquet"))[0].length);
  }

  /** Runs NativeBuildsMain in a child JVM with -Dvecruntime.native.cpu=cpu; its output folder. */
  private Path run(String cpu) throws IOException, InterruptedException {
    Path out = Files.createDirectories(dir.resolve(cpu));
    String java = ProcessHandle.current().info().command().orElse("java");
    Process p = new ProcessBuilder(java, "-D" + NativeLibrary.CPU_PROPERTY + "=" + cpu,
        "-cp", System.getProperty("java.class.path"), NativeBuildsMain.class.getName(),
        out.toString()).redirectErrorStream(true).start();
    String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), "child JVM (" + cpu + ") failed:\n" + log);
    Files.writeString(out.resolve("log.txt"), log);
    return out;
  }

  private static String build(Path out) throws IOException {
    for (String line : Files.readAllLines(out.resolve("log.txt"))) {
      if (line.startsWith("build=")) {
        return line.substring("build=".length());
      }
    }
    throw new AssertionError("no build= line in " + Files.readString(out.resolve("log.txt")));
  }
}
