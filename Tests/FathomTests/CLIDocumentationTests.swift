import Foundation
import Testing

/// Documentation/CLI.md against the help texts (Sources/fathom/Help.swift) and against what the
/// built executable accepts: for each command, the options its help names, the options its
/// section of CLI.md names and the options its parser accepts are one set; the exit codes of
/// the help's overview are those of CLI.md's table.
@Suite("CLI.md, the help texts and the parser agree")
struct CLIDocumentationTests {
    /// The commands that take options, each with its section of CLI.md (a `## ` heading that
    /// names it, alone or in a list).
    static let commands = [
        "render", "verify", "presets", "find", "sequence", "expmap", "video", "info", "convert", "families",
        "palettes", "version",
    ]

    /// Options named in the texts that are not fathom's: NVRTC's `--fmad=false` (what `--gpu-exact`
    /// compiles with).
    static let foreign: Set<String> = ["fmad"]

    static var documentation: String {
        get throws {
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
            return try String(contentsOf: root.appendingPathComponent("Documentation/CLI.md"), encoding: .utf8)
        }
    }

    /// The section of CLI.md whose heading names `command`.
    static func section(_ command: String, of text: String) -> String? {
        let parts = text.components(separatedBy: "\n## ").dropFirst()
        for part in parts {
            let heading = part.prefix { $0 != "\n" }
            let names = heading.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            if names.contains(command) { return String(part.dropFirst(heading.count)) }
        }
        return nil
    }

    /// The `--name` options a text names for `command` (`named`), and those it says the command
    /// does not take (`refused`: a token after "no" or "not" in its clause, as in "no `--trap`").
    /// `--help`, the foreign options and those that follow another command's name (`render
    /// --npy` in expmap's text is render's option) are left out.
    static func options(in text: String, of command: String) -> (named: Set<String>, refused: Set<String>) {
        let pattern = try! NSRegularExpression(pattern: "--([a-z][a-z0-9-]*)")
        let refusal = try! NSRegularExpression(pattern: #"\b(no|not)\b"#, options: .caseInsensitive)
        let listOfOptions = #/[\s`',/]*(?:--[a-z0-9-]+[\s`',/]*(?:(?:or|and)[\s`',/]+)?)*/#
        let ns = text as NSString
        var named: Set<String> = []
        var refused: Set<String> = []
        for match in pattern.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
            let name = ns.substring(with: match.range(at: 1))
            if name == "help" || foreign.contains(name) { continue }
            let before = ns.substring(to: match.range.location)
            let previous = before.split(whereSeparator: { $0 == " " || $0 == "`" || $0 == "'" || $0 == "\n" }).last
            if let previous, commands.contains(String(previous)) || previous == "help", String(previous) != command,
                before.last == " "
            {
                continue
            }
            // Refused: "no" or "not", then only options and "or"/"and" up to this one.
            let clause =
                before.split(omittingEmptySubsequences: false, whereSeparator: { "(.:;".contains($0) }).last.map(
                    String.init) ?? ""
            let words = clause as NSString
            let last = refusal.matches(in: clause, range: NSRange(location: 0, length: words.length)).last
            let between = last.map { words.substring(from: $0.range.location + $0.range.length) }
            if let between, between.wholeMatch(of: listOfOptions) != nil {
                refused.insert(name)
            } else {
                named.insert(name)
            }
        }
        return (named, refused)
    }

    /// Whether `command`'s parser accepts `--name`: the executable is given `--name=x` and then
    /// an option no command has, so that parsing stops before any work whichever it is. An
    /// unknown option is named in the error; a flag says it takes no value.
    static func accepts(_ command: String, _ name: String, in folder: String) throws -> Bool {
        let r = try FathomProcess.run([command, "--\(name)=x", "--no-such-option-here"], in: folder)
        #expect(r.code == 64, "fathom \(command) --\(name)=x: \(r.stderr)")
        return !r.stderr.contains("unknown option '--\(name)'")
    }

    @Test("each command's help, its section of CLI.md and its parser name the same options")
    func optionsAgree() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let doc = try Self.documentation
        // Every name that any text gives, and every one the CLI's sources read: the candidates.
        var helps: [String: String] = [:]
        var candidates: Set<String> = []
        for command in Self.commands {
            let r = try FathomProcess.run([command, "--help"], in: folder)
            #expect(r.code == 0)
            helps[command] = r.stdout
            let section = try #require(Self.section(command, of: doc), "CLI.md has no section for \(command)")
            for text in [r.stdout, section] {
                let found = Self.options(in: text, of: command)
                candidates.formUnion(found.named.union(found.refused))
            }
        }
        candidates.formUnion(try Self.optionsReadBySources())
        #expect(candidates.count > 60)
        for command in Self.commands {
            var accepted: Set<String> = []
            for name in candidates where try Self.accepts(command, name, in: folder) { accepted.insert(name) }
            for (source, text) in [
                ("fathom \(command) --help", helps[command]!), ("CLI.md, \(command)", Self.section(command, of: doc)!),
            ] {
                let found = Self.options(in: text, of: command)
                #expect(
                    found.named == accepted,
                    "\(source): not accepted \(found.named.subtracting(accepted).sorted()), missing \(accepted.subtracting(found.named).sorted())"
                )
                #expect(
                    found.refused.isDisjoint(with: accepted),
                    "\(source): said to be refused but accepted \(found.refused.intersection(accepted).sorted())")
            }
        }
    }

    /// The option names that Sources/fathom reads from parsed arguments (`a["name"]`,
    /// `a.int("name")`, `a.has("name")` and the like): with the names the texts give, the
    /// candidates each command's parser is asked about.
    static func optionsReadBySources() throws -> Set<String> {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/fathom")
        let pattern = try NSRegularExpression(
            pattern: #"(?:a|parsed|arguments)(?:\[|\.(?:int|double|size|pair|has)\()"([a-z][a-z0-9-]*)""#)
        var names: Set<String> = []
        for file in try FileManager.default.contentsOfDirectory(atPath: root.path) where file.hasSuffix(".swift") {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            let ns = text as NSString
            for m in pattern.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
                names.insert(ns.substring(with: m.range(at: 1)))
            }
        }
        names.remove("help")
        return names
    }

    @Test("the help's overview gives the exit codes of CLI.md's table")
    func exitCodesAgree() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let overview = try FathomProcess.run(["help"], in: folder).stdout
        let doc = try Self.documentation
        let table = try #require(Self.section("Exit codes", of: doc))
        let rows = try NSRegularExpression(pattern: #"^\| ([0-9]+(?: \+ N)?) \|"#, options: .anchorsMatchLines)
        let ns = table as NSString
        let documented = Set(
            rows.matches(in: table, range: NSRange(location: 0, length: ns.length)).map {
                ns.substring(with: $0.range(at: 1)).replacingOccurrences(of: " ", with: "")
            })
        #expect(documented.count >= 9)
        let codes = overview.components(separatedBy: "Exit codes:").last ?? ""
        let listed = try NSRegularExpression(pattern: #"(?:^|[ ,\n])([0-9]+(?:\+N)?) [a-z]"#)
        let nc = codes as NSString
        let given = Set(
            listed.matches(in: codes, range: NSRange(location: 0, length: nc.length)).map {
                nc.substring(with: $0.range(at: 1))
            })
        #expect(given == documented, "overview \(given.sorted()), CLI.md \(documented.sorted())")
    }
}
