// swift-tools-version:6.0
import PackageDescription

// MARK: - Build settings

// No unsafe flag in any target, so the package can be a versioned dependency (SwiftPM refuses
// unsafe flags in a dependency). Hot loops stay portable (baseline x86-64 / arm64); a build for
// this CPU is the builder's opt-in on the command line, not the manifest's: `FATHOM_NATIVE=1
// make release` passes `-target-cpu haswell`, `-march=haswell` and `FATHOM_FMA` (Makefile;
// Documentation/Benchmarks.md has both). The GPU kernels' CPU emulation turns off contraction
// into FMA in its source (`#pragma STDC FP_CONTRACT OFF`, Emulation.cpp), where it had the
// unsafe `-ffp-contract=off`.

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
    "CPNG": ["CLibPNG"],
    "FractalImaging": ["FractalEngine", "CPNG", "CEXR"],
    "Fathom": ["FractalNumerics", "ArbitraryPrecision", "FractalEngine", "FathomGPU", "FractalImaging"],
    "FathomCLI": ["Fathom", "FractalNumerics", "CHTTPServer"],
    "fathom-bench": ["Fathom", "CMPFR", "FractalNumerics"],
    "FractalNumericsTests": ["FractalNumerics", "ArbitraryPrecision"],
    "ArbitraryPrecisionTests": ["ArbitraryPrecision"],
    "FractalEngineTests": ["FractalEngine"],
    "FractalImagingTests": ["FractalImaging"],
    "FathomTests": ["Fathom", "FractalNumerics"],
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
        .library(name: "FractalEngine", targets: ["FractalEngine"]),
        .library(name: "FractalImaging", targets: ["FractalImaging"]),
        .library(name: "FathomGPU", targets: ["FathomGPU"]),
        .executable(name: "fathom", targets: ["FathomCLI"]),
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
            linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]
        ),
        .systemLibrary(
            name: "CLibPNG",
            pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"]), .brew(["libpng"])]
        ),
        // zlib named too: a static libpng (make portable) needs it after itself.
        .target(
            name: "CPNG",
            dependencies: closure("CPNG"),
            linkerSettings: [.linkedLibrary("z")]
        ),
        // OpenEXR's C library (OpenEXRCore), opened at run time: EXR output where it is
        // installed, a one-line error where it is not.
        .target(name: "CEXR", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // GNU libmicrohttpd, opened at run time: `fathom explore`'s HTTP server where it is
        // installed, a one-line error where it is not (only the command uses it).
        .target(
            name: "CHTTPServer",
            linkerSettings: [
                .linkedLibrary("dl", .when(platforms: [.linux])), .linkedLibrary("pthread", .when(platforms: [.linux])),
            ]),

        // MARK: Library layers
        .target(name: "FractalNumerics"),
        .target(name: "ArbitraryPrecision", dependencies: closure("ArbitraryPrecision")),
        .target(
            name: "FractalEngine",
            dependencies: closure("FractalEngine")
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
        // The command line's module is FathomCLI, its product and executable `fathom`: no two paths may
        // differ only in case (Sources/Fathom is the library; a case-insensitive volume merges them).
        // Its explorer's page (Explore/Page) is embedded at build time (`ExplorerPage.files`).
        .executableTarget(
            name: "FathomCLI", dependencies: closure("FathomCLI"), exclude: ["Explore/Page"], plugins: ["EmbedPage"]),
        .executableTarget(
            name: "fathom-bench",
            dependencies: closure("fathom-bench"),
            path: "Benchmarks/fathom-bench"
        ),

        // MARK: Build tools
        // KernelSource.swift, generated at build time from CFathomGPU's three kernel headers
        // (Documentation/GPU.md): the plugin finds them through the CFathomGPU target, so it
        // serves any target that lists it in `plugins:`.
        .executableTarget(name: "embed-kernels", path: "Sources/embed-kernels"),
        .plugin(name: "EmbedKernels", capability: .buildTool(), dependencies: ["embed-kernels"]),
        // ExplorerPage.swift, generated at build time from Sources/FathomCLI/Explore/Page.
        .executableTarget(name: "embed-page", path: "Sources/embed-page"),
        .plugin(name: "EmbedPage", capability: .buildTool(), dependencies: ["embed-page"]),

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
