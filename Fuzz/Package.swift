// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets for Fathom's file readers (Documentation/Reliability.md, "Fuzzing").
// A package of its own, so the root package and CI's `swift build` never see the fuzzer
// flags. `make fuzz` builds it with the sanitizers:
//
//     swift build -c release --package-path Fuzz --build-path .build/fuzz -Xswiftc -sanitize=fuzzer,address
//
// Each fuzzer is an executable whose main.swift hands its target function to libFuzzer's
// driver (FuzzSupport/FuzzDriver.swift says why not libFuzzer's own main).

// MARK: - Targets

let fuzzers = ["FuzzLocation", "FuzzKFR", "FuzzPNG", "FuzzGradient", "FuzzOrbit"]

let package = Package(
    name: "FathomFuzz",
    products: fuzzers.map { .executable(name: $0, targets: [$0]) },
    dependencies: [.package(name: "Fathom", path: "..")],
    targets: [
        // What a command does with a location after reading it, shared by three fuzzers.
        .target(name: "CFuzzDriver"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzDriver", .product(name: "Fathom", package: "Fathom")]),
    ]
        + fuzzers.map {
            .executableTarget(name: $0, dependencies: ["FuzzSupport", .product(name: "Fathom", package: "Fathom")])
        }
)
