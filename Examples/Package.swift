// swift-tools-version:6.0
// Small tools a user of Fathom would write, in a package of their own that depends on Fathom as
// any other package would: by path (the repository's root, one folder up) when built here, or
// by version when FATHOM_URL and FATHOM_VERSION are set (`.package(url:from:)`; make test's
// Scripts/examples-check.sh does that with a tagged bare clone). README.md says what each tool
// does. The check also adds `readme-example` (README.md's library example as written there)
// and a `snippet-...` tool for each DocC article's code.
import Foundation
import PackageDescription

let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
let environment = Context.environment
let fathom: Package.Dependency
let fathomName: String
if let url = environment["FATHOM_URL"], let version = environment["FATHOM_VERSION"].flatMap(Version.init) {
    fathom = .package(url: url, from: version)
    // A URL dependency's identity is its last path component, without ".git".
    fathomName = String(url.split(separator: "/").last ?? "fathom").replacingOccurrences(of: ".git", with: "")
} else {
    fathom = .package(path: "..")
    // A path dependency's identity is its folder's name, whatever the checkout is called.
    fathomName = here.deletingLastPathComponent().lastPathComponent
}
// Every folder of Sources/ is a tool: the four here, and what the check adds beside them.
let tools = ((try? FileManager.default.contentsOfDirectory(atPath: here.appendingPathComponent("Sources").path)) ?? [])
    .filter { !$0.hasPrefix(".") }.sorted()

let package = Package(
    name: "FathomExamples",
    platforms: [.macOS(.v15)],
    dependencies: [fathom],
    targets: tools.map {
        .executableTarget(
            name: $0,
            dependencies: [.product(name: "Fathom", package: fathomName)]
                + ($0 == "alongside-numerics" ? ["ComplexModule"] : []))
    } + [
        // swift-numerics' ComplexModule in shape (it cannot be fetched here): alongside-numerics
        // imports it beside Fathom, so a re-exported type that clashes with it fails the build.
        .target(name: "ComplexModule", path: "StandIns/ComplexModule")
    ]
)
