import Foundation
import Testing

/// Rules on the repository itself that keep the package portable (Documentation/Portability.md).
@Suite struct RepositoryTests {
    /// The tracked files, from git (relative paths).
    static func trackedPaths() throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-C", repositoryFile("").path, "ls-files", "-z"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "git ls-files failed")
        return String(decoding: data, as: UTF8.self).split(separator: "\0").map(String.init)
    }

    /// Two paths that differ only in case (`Sources/Fathom` and `Sources/fathom`) become one on a
    /// case-insensitive volume (macOS's default): a clone there merges them.
    @Test func noPathsDifferOnlyInCase() throws {
        let files = try Self.trackedPaths()
        #expect(files.count > 100)
        var every = Set<String>()
        for file in files {
            let parts = file.split(separator: "/")
            for end in 1...parts.count { every.insert(parts[..<end].joined(separator: "/")) }
        }
        let groups = Dictionary(grouping: every, by: { $0.lowercased() }).values.filter { $0.count > 1 }
        #expect(groups.isEmpty, "paths that differ only in case: \(groups.map { $0.sorted() })")
    }

    /// The rule the check below enforces, tried on lines it must refuse and lines it must pass.
    @Test func glibcRuleSeesItsCases() {
        #expect(!Self.unguardedGlibc(in: "import Glibc\n").isEmpty)
        #expect(!Self.unguardedGlibc(in: "let x = Glibc.signal(2, nil)\n").isEmpty)
        #expect(!Self.unguardedGlibc(in: "#if canImport(Glibc)\n#else\nimport Glibc\n#endif\n").isEmpty)
        #expect(
            Self.unguardedGlibc(in: "#if canImport(Glibc)\nimport Glibc\n#elseif canImport(Darwin)\n#endif\n").isEmpty)
        #expect(Self.unguardedGlibc(in: "#if os(Linux)\n#if DEBUG\nlet a = Glibc.exit\n#endif\n#endif\n").isEmpty)
        #expect(Self.unguardedGlibc(in: "// Glibc in a comment\nlet s = \"Glibc\" // Glibc\n").isEmpty)
    }

    /// Every Swift file names `Glibc` only inside `#if canImport(Glibc)` or `#if os(Linux)`,
    /// so that the package compiles where Glibc is not (macOS: Darwin; Foundation re-exports
    /// either, so most code needs neither).
    @Test func glibcOnlyUnderGuards() throws {
        let swiftFiles = try Self.trackedPaths().filter { $0.hasSuffix(".swift") }
        #expect(swiftFiles.count > 50)
        var found: [String] = []
        for path in swiftFiles {
            let text = try String(contentsOf: repositoryFile(path), encoding: .utf8)
            found += Self.unguardedGlibc(in: text).map { "\(path):\($0)" }
        }
        #expect(found.isEmpty, "Glibc named outside a guard: \(found)")
    }

    /// Whether `code` has the identifier Glibc (not inside a longer name). The name is spelt in
    /// two pieces so that this file's own code does not hold it.
    static func namesGlibc(_ code: String) -> Bool {
        let name = "Gl" + "ibc"
        func identifierCharacter(_ c: Character?) -> Bool { c.map { $0.isLetter || $0.isNumber || $0 == "_" } ?? false }
        var rest = code[...]
        while let range = rest.range(of: name) {
            let before = range.lowerBound == code.startIndex ? nil : code[code.index(before: range.lowerBound)]
            let after = range.upperBound == code.endIndex ? nil : code[range.upperBound]
            if !identifierCharacter(before) && !identifierCharacter(after) { return true }
            rest = code[range.upperBound...]
        }
        return false
    }

    /// The line numbers (from 1) where `Glibc` appears in code outside a Linux-only branch.
    static func unguardedGlibc(in text: String) -> [Int] {
        // Each open #if: whether the branch being read is Linux-only.
        var branches: [Bool] = []
        var lines: [Int] = []
        func linuxOnly(_ condition: Substring) -> Bool {
            condition.contains("canImport(Glibc)") || condition.contains("os(Linux)")
        }
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#if ") {
                branches.append(linuxOnly(line.dropFirst(4)))
            } else if line.hasPrefix("#elseif "), !branches.isEmpty {
                branches[branches.count - 1] = linuxOnly(line.dropFirst(8))
            } else if line.hasPrefix("#else"), !branches.isEmpty {
                branches[branches.count - 1] = false
            } else if line.hasPrefix("#endif"), !branches.isEmpty {
                branches.removeLast()
            } else {
                // The code: string literals emptied, then a trailing comment cut off.
                let code = line.replacing(#/"(?:[^"\\]|\\.)*"/#, with: "\"\"").components(separatedBy: "//")[0]
                if namesGlibc(code), !branches.contains(true) { lines.append(number + 1) }
            }
        }
        return lines
    }
}
