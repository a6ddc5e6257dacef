// swift-tools-version:6.0
import PackageDescription

// MARK: - Build settings

/// Hot loops stay portable (baseline x86-64 / arm64). `FATHOM_NATIVE=1 swift build` opts in to
/// `-target-cpu haswell` for the numeric modules; benchmark with and without
/// (Documentation/Benchmarks.md has both).
let nativeFlags: [SwiftSetting] =
    Context.environment["FATHOM_NATIVE"] == "1"
    ? [.unsafeFlags(["-Xcc", "-march=haswell", "-target-cpu", "haswell"]), .define("FATHOM_FMA")]
    : []
let numericSettings: [SwiftSetting] = nativeFlags

// MARK: - Dependencies

/// Each target's direct dependencies as the code reads. Every target is given the whole
/// transitive closure (`closure`), not only these: SwiftPM recompiles a module when a module it
/// lists changes, but not when a module reached only through another one does (its layouts are
/// compiled into the client all the same). A stale client read a struct at its old layout and
/// crashed (Documentation/Reliability.md, "Stale objects"; swiftlang/swift#89636).
/// Scripts/dependency-check.sh checks the manifest against this rule.
let uses: [String: [String]] = [
    "ArbitraryPrecision": ["CMPFR", "FractalNumerics"],
    "FractalEngine": ["CMPFR", "FractalNumerics", "ArbitraryPrecision"],
    "FathomGPU": ["FractalEngine", "CFathomGPU"],
    "FractalImaging": ["FractalEngine", "CPNG", "CEXR"],
    "Fathom": ["FractalNumerics", "ArbitraryPrecision", "FractalEngine", "FathomGPU", "FractalImaging"],
    "fathom": ["Fathom"],
    "fathom-bench": ["Fathom", "CMPFR"],
    "FractalNumericsTests": ["FractalNumerics", "ArbitraryPrecision"],
    "ArbitraryPrecisionTests": ["ArbitraryPrecision"],
    "FractalEngineTests": ["FractalEngine"],
    "FractalImagingTests": ["FractalImaging"],
    "FathomTests": ["Fathom"],
]

/// `uses[name]` and everything those reach, each once, in a fixed order.
func closure(_ name: String) -> [Target.Dependency] {
    var seen: [String] = []
    func visit(_ n: String) {
        for d in uses[n] ?? [] where !seen.contains(d) {
            seen.append(d)
            visit(d)
        }
    }
    visit(name)
    return seen.sorted().map { .target(name: $0) }
}

// MARK: - Targets

let package = Package(
    name: "Fathom",
    // Synchronization.Mutex and Atomic (checked Sendable state) need macOS 15 there.
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Fathom", targets: ["Fathom"]),
        .library(name: "FractalNumerics", targets: ["FractalNumerics"]),
        .library(name: "ArbitraryPrecision", targets: ["ArbitraryPrecision"]),
        .library(name: "FathomGPU", targets: ["FathomGPU"]),
        .executable(name: "fathom", targets: ["fathom"]),
        .executable(name: "fathom-bench", targets: ["fathom-bench"]),
    ],
    targets: [
        // MARK: System libraries
        .systemLibrary(
            name: "CMPFR",
            pkgConfig: "mpfr",
            providers: [.apt(["libmpfr-dev", "libgmp-dev"]), .brew(["mpfr"])]
        ),
        // The CUDA driver API and NVRTC, opened at run time (no CUDA at build time), and the
        // GPU kernels' source compiled for the CPU (the tests' emulation).
        .target(
            name: "CFathomGPU",
            exclude: ["FathomKernels.h", "FathomOrbit.h"],
            cxxSettings: [.unsafeFlags(["-ffp-contract=off", "-fno-fast-math"])],
            linkerSettings: [.linkedLibrary("dl")]
        ),
        .target(
            name: "CPNG",
            linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("z")]
        ),
        // OpenEXR's C library (OpenEXRCore), opened at run time: EXR output where it is
        // installed, a one-line error where it is not.
        .target(name: "CEXR", linkerSettings: [.linkedLibrary("dl")]),

        // MARK: Library layers
        .target(name: "FractalNumerics", swiftSettings: numericSettings),
        .target(name: "ArbitraryPrecision", dependencies: closure("ArbitraryPrecision")),
        .target(
            name: "FractalEngine",
            dependencies: closure("FractalEngine"),
            swiftSettings: numericSettings
        ),
        // The CUDA backend above the engine: the engine's `KernelLauncher` for CUDA and for the
        // kernels' CPU emulation.
        .target(
            name: "FathomGPU",
            dependencies: closure("FathomGPU"),
            plugins: ["EmbedKernels"]  // KernelSource.text, the GPU kernels' source
        ),
        .target(name: "FractalImaging", dependencies: closure("FractalImaging")),
        .target(
            name: "Fathom",
            dependencies: closure("Fathom")
        ),

        // MARK: Executables
        .executableTarget(name: "fathom", dependencies: closure("fathom"), path: "Sources/fathom"),
        .executableTarget(
            name: "fathom-bench",
            dependencies: closure("fathom-bench"),
            path: "Benchmarks/fathom-bench",
            swiftSettings: numericSettings
        ),

        // MARK: Build tools
        // KernelSource.swift, generated at build time from CFathomGPU's three kernel headers
        // (Documentation/GPU.md): the plugin finds them through the CFathomGPU target, so it
        // serves any target that lists it in `plugins:`.
        .executableTarget(name: "embed-kernels", path: "Sources/embed-kernels"),
        .plugin(name: "EmbedKernels", capability: .buildTool(), dependencies: ["embed-kernels"]),

        // MARK: Tests
        .testTarget(name: "FractalNumericsTests", dependencies: closure("FractalNumericsTests")),
        .testTarget(
            name: "ArbitraryPrecisionTests", dependencies: closure("ArbitraryPrecisionTests"),
            resources: [.copy("Fixtures")]),
        .testTarget(name: "FractalEngineTests", dependencies: closure("FractalEngineTests")),
        .testTarget(name: "FractalImagingTests", dependencies: closure("FractalImagingTests")),
        .testTarget(name: "FathomTests", dependencies: closure("FathomTests"), resources: [.copy("Fixtures")]),
    ],
    cxxLanguageStandard: .cxx17
)
