import Foundation
import Testing

/// Documentation/CLI.md against the help texts and against what the built executable accepts
/// (both derived from the option declarations, Sources/FathomCLI/Options.swift): for each
/// command, the options its help names, the options its section of CLI.md names and the options
/// its parser accepts are one set; the exit codes of the help's overview are those of CLI.md's
/// table.
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
        get throws { try String(contentsOf: repositoryFile("Documentation/CLI.md"), encoding: .utf8) }
    }

    /// The section of CLI.md whose heading names `command`.
    static func section(_ command: String, of text: String) -> String? {
        for part in text.components(separatedBy: "\n## ").dropFirst() {
            let heading = part.prefix { $0 != "\n" }
            let names = heading.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            if names.contains(command) { return String(part.dropFirst(heading.count)) }
        }
        return nil
    }

    /// The `--name` options a text names for `command` (`named`), and those it says the command
    /// does not take (`refused`: "no" or "not" in the option's clause, then only options and
    /// "or"/"and" up to it, as in "no `--boundary`, `--slope` or `--trap`"). `--help`, the
    /// foreign options and those that follow another command's name (`render --npy` in
    /// expmap's text is render's option) are left out.
    static func options(in text: String, of command: String) -> (named: Set<String>, refused: Set<String>) {
        let refusal = #/(?i)\b(?:no|not)\b[\s`',/]*(?:--[a-z0-9-]+[\s`',/]*(?:(?:or|and)[\s`',/]+)?)*$/#
        var named: Set<String> = []
        var refused: Set<String> = []
        for match in text.matches(of: #/--([a-z][a-z0-9-]*)/#) {
            let name = String(match.output.1)
            if name == "help" || foreign.contains(name) { continue }
            let before = text[..<match.range.lowerBound]
            let previous = before.split(whereSeparator: { " `'\n".contains($0) }).last.map(String.init)
            if before.last == " ", let previous, previous != command, commands.contains(previous) || previous == "help"
            {
                continue
            }
            let clause = before.split(omittingEmptySubsequences: false, whereSeparator: { "(.:;".contains($0) }).last!
            if clause.firstMatch(of: refusal) != nil { refused.insert(name) } else { named.insert(name) }
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
        // Each command's two texts and what they name; the candidates each parser is asked
        // about: every name any text gives, and every one the CLI's sources read.
        var texts: [(command: String, source: String, named: Set<String>, refused: Set<String>)] = []
        var candidates = try Self.optionsReadBySources()
        for command in Self.commands {
            let help = try FathomProcess.run([command, "--help"], in: folder)
            #expect(help.code == 0)
            let section = try #require(Self.section(command, of: doc), "CLI.md has no section for \(command)")
            for (source, text) in [("fathom \(command) --help", help.stdout), ("CLI.md, \(command)", section)] {
                let found = Self.options(in: text, of: command)
                texts.append((command, source, found.named, found.refused))
                candidates.formUnion(found.named.union(found.refused))
            }
        }
        #expect(candidates.count > 60)
        for command in Self.commands {
            let accepted = try candidates.filter { try Self.accepts(command, $0, in: folder) }
            for text in texts where text.command == command {
                #expect(
                    text.named == accepted,
                    "\(text.source): not accepted \(text.named.subtracting(accepted).sorted()), missing \(accepted.subtracting(text.named).sorted())"
                )
                #expect(
                    text.refused.isDisjoint(with: accepted),
                    "\(text.source): said to be refused but accepted \(text.refused.intersection(accepted).sorted())")
            }
        }
    }

    /// The option names Sources/FathomCLI declares (`CLIOption("name", ...)`,
    /// `CLIOption(flag: "name", ...)`): with the names the texts give, the candidates each
    /// command's parser is asked about, so an option declared but in no text is found.
    static func optionsReadBySources() throws -> Set<String> {
        let folder = repositoryFile("Sources/FathomCLI")
        let declared = #/CLIOption\(\s*(?:flag:\s*)?"([a-z][a-z0-9-]*)"/#
        var names: Set<String> = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".swift") {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for m in text.matches(of: declared) { names.insert(String(m.output.1)) }
        }
        return names
    }

    @Test("the help's overview gives the exit codes of CLI.md's table")
    func exitCodesAgree() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let overview = try FathomProcess.run(["help"], in: folder).stdout
        let doc = try Self.documentation
        let table = try #require(Self.section("Exit codes", of: doc))
        let documented = Set(
            table.matches(of: #/(?m)^\| ([0-9]+(?: \+ N)?) \|/#).map {
                $0.output.1.replacingOccurrences(of: " ", with: "")
            })
        #expect(documented.count >= 9)
        let codes = overview.components(separatedBy: "Exit codes:").last ?? ""
        let given = Set(codes.matches(of: #/(?:^|[ ,\n])([0-9]+(?:\+N)?) [a-z]/#).map { String($0.output.1) })
        #expect(given == documented, "overview \(given.sorted()), CLI.md \(documented.sorted())")
    }
}
