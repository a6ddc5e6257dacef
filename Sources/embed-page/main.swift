// The EmbedPage build-tool plugin's tool (Plugins/EmbedPage): writes `fathom explore`'s page
// (its HTML, CSS and JavaScript files) into the command's module as `ExplorerPage.files`, so the
// executable serves them with nothing read or fetched at run time.
//
//     embed-page OUTPUT.swift FILE...
import Foundation

/// Unused. SwiftPM passes `-Xswiftc` flags to the tools it builds for plugins as well, so
/// `make fuzz-build` (`-Xswiftc -sanitize=fuzzer,address`) links this tool with libFuzzer, which
/// needs this symbol; `main` stays this file's top-level code (SwiftPM aliases it), not libFuzzer's.
@_cdecl("LLVMFuzzerTestOneInput")
func unusedFuzzTarget(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 { 0 }

struct Failure: Error {
    let message: String
}

/// A raw string literal holding `text` exactly.
func literal(_ text: String) -> String {
    var hashes = "#"
    while text.contains("\"" + hashes) || text.contains("\\" + hashes) { hashes += "#" }
    return hashes + "\"\"\"\n" + text + "\n\"\"\"" + hashes
}

/// Writes `output` from `files`, unless it already holds that text.
func embed(_ files: [String], into output: String) throws {
    var entries: [String] = []
    for path in files.sorted() {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Failure(message: "cannot read \(path)")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw Failure(message: "\(path) is not UTF-8") }
        // A multi-line literal reads a carriage return as a line break.
        guard !text.utf8.contains(13) else { throw Failure(message: "\(path) has a carriage return") }
        let name = URL(fileURLWithPath: path).lastPathComponent
        entries.append("        \"\(name)\": \(literal(text)),")
    }
    let swift = """
        // Generated at build time by the EmbedPage plugin (Plugins/EmbedPage, Sources/embed-page)
        // from Sources/FathomCLI/Explore/Page: do not edit.

        enum ExplorerPage {
            /// Each file of the page by name.
            static let files: [String: String] = [
        \(entries.joined(separator: "\n"))
            ]
        }

        """
    let bytes = Data(swift.utf8)
    if FileManager.default.contents(atPath: output) == bytes { return }
    do { try bytes.write(to: URL(fileURLWithPath: output), options: .atomic) } catch {
        throw Failure(message: "cannot write \(output): \(error)")
    }
}

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: embed-page OUTPUT.swift FILE...\n".utf8))
    exit(2)
}
do {
    try embed(Array(arguments.dropFirst()), into: arguments.first!)
} catch let failure as Failure {
    FileHandle.standardError.write(Data("embed-page: \(failure.message)\n".utf8))
    exit(1)
}
