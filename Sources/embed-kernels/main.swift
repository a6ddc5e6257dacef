// The EmbedKernels build-tool plugin's tool (Plugins/EmbedKernels): writes the GPU kernels'
// CUDA C++ source, the given headers one after the other, as `KernelSource.text`, the string
// NVRTC compiles at run time and the kernel cache hashes.
//
//     embed-kernels OUTPUT.swift HEADER...
//
// The string is the headers' text without the last one's final newline (a multi-line literal
// drops the newline before its closing delimiter): byte for byte the string the committed
// KernelSource.swift held before the plugin, so the cache keys of compiled kernels stay the same.
import Foundation

/// Unused. SwiftPM passes `-Xswiftc` flags to the tools it builds for plugins as well, so
/// `make fuzz-build` (`-Xswiftc -sanitize=fuzzer,address`) links this tool with libFuzzer, which
/// needs this symbol; `main` stays this file's top-level code (SwiftPM aliases it), not libFuzzer's.
@_cdecl("LLVMFuzzerTestOneInput")
func unusedFuzzTarget(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 { 0 }

struct Failure: Error {
    let message: String
}

/// Writes `output` from `headers`, unless it already holds that text.
func embed(_ headers: [String], into output: String) throws {
    var text = ""
    for path in headers {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Failure(message: "cannot read \(path)")
        }
        guard let contents = String(data: data, encoding: .utf8) else { throw Failure(message: "\(path) is not UTF-8") }
        // A multi-line literal reads a carriage return as a line break, so the string would differ.
        guard !contents.utf8.contains(13) else { throw Failure(message: "\(path) has a carriage return") }
        text += contents
    }
    guard text.hasSuffix("\n") else { throw Failure(message: "\(headers.last!) does not end with a newline") }

    // A raw string needs a delimiter that the text neither closes (`"""#`) nor escapes (`\#`).
    var hashes = "#"
    while text.contains("\"\"\"" + hashes) || text.contains("\\" + hashes) { hashes += "#" }

    let names = headers.map { URL(fileURLWithPath: $0).lastPathComponent }
    let swift = """
        // Generated at build time by the EmbedKernels plugin (Plugins/EmbedKernels, Sources/embed-kernels)
        // from \(names.joined(separator: " and ")): do not edit.

        enum KernelSource {
            /// The CUDA C++ source NVRTC compiles: \(names.joined(separator: ", then ")).
            static let text = \(hashes)\"\"\"
        \(text)\"\"\"\(hashes)
        }

        """
    // SwiftPM relinks the tool when a build's set of products changes, which reruns this command:
    // a file left as it is keeps FathomGPU from compiling again.
    let bytes = Data(swift.utf8)
    if FileManager.default.contents(atPath: output) == bytes { return }
    do {
        try bytes.write(to: URL(fileURLWithPath: output), options: .atomic)
    } catch {
        throw Failure(message: "cannot write \(output): \(error)")
    }
}

// No exit() while anything is allocated: under --sanitize=address the leak check would fail the build.
var status: Int32 = 0
do {
    let arguments = Array(CommandLine.arguments.dropFirst())
    guard arguments.count >= 2 else { throw Failure(message: "usage: embed-kernels OUTPUT.swift HEADER...") }
    try embed(Array(arguments.dropFirst()), into: arguments[0])
} catch {
    let message = (error as? Failure)?.message ?? "\(error)"
    FileHandle.standardError.write(Data("embed-kernels: error: \(message)\n".utf8))
    status = 1
}
if status != 0 { exit(status) }
