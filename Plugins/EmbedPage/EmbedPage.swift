// Embeds `fathom explore`'s page (Sources/FathomCLI/Explore/Page: HTML, CSS, JavaScript, and
// JSON data: the preset thumbnails) in the
// module it is applied to as `ExplorerPage.files`, written by the `embed-page` tool into this
// plugin's work folder. A build command with the page's files as its inputs: the build reruns it
// when one changes (Documentation/Explorer.md).
import Foundation
import PackagePlugin

@main
struct EmbedPage: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let module = target as? SwiftSourceModuleTarget else { throw EmbedPageError.notSwift(target.name) }
        let folder = module.directoryURL.appending(path: "Explore/Page")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path(percentEncoded: false))
            .filter { [".html", ".css", ".js", ".json"].contains(where: $0.hasSuffix) }.sorted()
        guard !names.isEmpty else { throw EmbedPageError.noPage(folder.path(percentEncoded: false)) }
        let files = names.map { folder.appending(path: $0) }
        let output = context.pluginWorkDirectoryURL.appending(path: "ExplorerPage.swift")
        return [
            .buildCommand(
                displayName: "Embedding the explorer's page in \(target.name)",
                executable: try context.tool(named: "embed-page").url,
                arguments: [output.path(percentEncoded: false)] + files.map { $0.path(percentEncoded: false) },
                inputFiles: files,
                outputFiles: [output]
            )
        ]
    }
}

enum EmbedPageError: Error, CustomStringConvertible {
    case notSwift(String)
    case noPage(String)
    var description: String {
        switch self {
        case .notSwift(let name): "EmbedPage: \(name) is not a Swift target"
        case .noPage(let path): "EmbedPage: no .html, .css, .js or .json file in \(path)"
        }
    }
}
