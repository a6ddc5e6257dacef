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
        .target(name: "ArbitraryPrecision", dependencies: ["CMPFR", "FractalNumerics"]),
        .target(
            name: "FractalEngine",
            dependencies: ["CMPFR", "FractalNumerics", "ArbitraryPrecision"],
            swiftSettings: numericSettings
        ),
        // The CUDA backend above the engine: the engine's `KernelLauncher` for CUDA and for the
        // kernels' CPU emulation.
        .target(
            name: "FathomGPU",
            dependencies: ["FractalEngine", "CFathomGPU"],
            plugins: ["EmbedKernels"]  // KernelSource.text, the GPU kernels' source
        ),
        .target(name: "FractalImaging", dependencies: ["FractalEngine", "CPNG", "CEXR"]),
        .target(
            name: "Fathom",
            dependencies: ["FractalNumerics", "ArbitraryPrecision", "FractalEngine", "FathomGPU", "FractalImaging"]
        ),

        // MARK: Executables
        .executableTarget(name: "fathom", dependencies: ["Fathom"], path: "Sources/fathom"),
        .executableTarget(
            name: "fathom-bench",
            dependencies: ["Fathom", "CMPFR"],
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
        .testTarget(name: "FractalNumericsTests", dependencies: ["FractalNumerics", "ArbitraryPrecision"]),
        .testTarget(
            name: "ArbitraryPrecisionTests", dependencies: ["ArbitraryPrecision"], resources: [.copy("Fixtures")]),
        .testTarget(name: "FractalEngineTests", dependencies: ["FractalEngine"]),
        .testTarget(name: "FractalImagingTests", dependencies: ["FractalImaging"]),
        .testTarget(name: "FathomTests", dependencies: ["Fathom"], resources: [.copy("Fixtures")]),
    ],
    cxxLanguageStandard: .cxx17
)
