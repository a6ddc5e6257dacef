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

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("embed-kernels: error: \(message)\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count >= 2, let output = arguments.first else {
    fail("usage: embed-kernels OUTPUT.swift HEADER...")
}
let headers = Array(arguments.dropFirst())

var text = ""
for path in headers {
    guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
    guard let contents = String(data: data, encoding: .utf8) else { fail("\(path) is not UTF-8") }
    // A multi-line literal reads a carriage return as a line break, so the string would differ.
    guard !contents.utf8.contains(13) else { fail("\(path) has a carriage return") }
    text += contents
}
guard text.hasSuffix("\n") else { fail("\(headers.last!) does not end with a newline") }

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
do {
    try Data(swift.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
} catch {
    fail("cannot write \(output): \(error)")
}
