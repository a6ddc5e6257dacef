// swift-tools-version:6.0
// Three small tools a user of Fathom would write, in a package of their own that depends on
// Fathom by path (the repository's root, one folder up), as any other package would
// (`.package(path:)` or `.package(url:from:)`): README.md says what each does. `make examples`
// (and `make test`) builds them and runs each on a file of the repository.
import Foundation
import PackageDescription

// A path dependency's identity is its folder's name, whatever the checkout is called.
let fathomRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let fathom = fathomRoot.lastPathComponent

let package = Package(
    name: "FathomExamples",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "..")],
    targets: [
        .executableTarget(name: "render-location", dependencies: [.product(name: "Fathom", package: fathom)]),
        .executableTarget(name: "recolor", dependencies: [.product(name: "Fathom", package: fathom)]),
        .executableTarget(name: "verify-view", dependencies: [.product(name: "Fathom", package: fathom)]),
    ]
)
