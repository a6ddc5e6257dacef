import Fathom

/// One command-line option, declared once: its name, the value it takes, how that value is read
/// and checked, and its help. The parser (`Arguments`), every command's help text (`CommandSpec`)
/// and the check of Documentation/CLI.md (CLIDocumentationTests) all derive from these
/// declarations; the commands read a value through its declaration (`a.int(.threads)`), so a
/// name is spelled once. The declarations themselves are in Options.swift.
struct CLIOption: Sendable {
    /// The value an option takes, which decides how it is read and checked when the command
    /// line is parsed (before any work): a value of the wrong form is refused there with one
    /// line naming the option.
    enum Value: Sendable {
        /// No value: the option is given or not.
        case flag
        /// Any text, read by the command (a decimal of any length, a polynomial, a colour).
        case text
        /// A file or folder; `reads`: the command reads it, so no output may be written over it.
        case file(reads: Bool)
        /// An integer (`Int`), within `range` when one is given; `note` explains the range.
        case integer(ClosedRange<Int>?, note: String? = nil)
        /// A finite number, and where `bound` is given, one it accepts.
        case number(NumberBound? = nil)
        /// One of these words, exactly.
        case choice([String])
        /// WIDTHxHEIGHT, two integers (their range is `ImageSize`'s, checked with the file's).
        case size
        /// Two values separated by a comma (each read by the command).
        case pair
    }

    /// What a number option accepts beyond being finite, and how its refusal says so
    /// (`'x' is not a number` + `description`).
    struct NumberBound: Sendable {
        let description: String
        let accepts: @Sendable (Double) -> Bool

        /// An approximation table's epsilon: in (0, 1).
        static let epsilon = NumberBound(
            description: "in (0, 1)", accepts: LocationFile.EngineSettings.isBLAEpsilon)
    }

    /// The name, without the leading `--`.
    let name: String
    /// What the help shows after the name (`FILE`, `on|off`); empty for a flag.
    let placeholder: String
    let value: Value
    /// The help: one paragraph, wrapped when printed.
    let help: String

    /// A flag: an option without a value.
    init(flag name: String, _ help: String) { self.init(name, "", .flag, help) }

    /// `placeholder` empty for a choice: its words, `a|b|c`, so the help lists what the parser
    /// takes.
    init(_ name: String, _ placeholder: String, _ value: Value, _ help: String) {
        self.name = name
        if placeholder.isEmpty, case .choice(let words) = value {
            self.placeholder = words.joined(separator: "|")
        } else {
            self.placeholder = placeholder
        }
        self.value = value
        self.help = help
    }

    var takesValue: Bool {
        if case .flag = value { return false }
        return true
    }

    /// Whether the value names a file or folder the command reads.
    var readsInput: Bool {
        if case .file(reads: true) = value { return true }
        return false
    }

    /// `--name PLACEHOLDER`, as the help and the messages write it.
    var synopsis: String { placeholder.isEmpty ? "--\(name)" : "--\(name) \(placeholder)" }

    /// Checks `text` as this option's value: nil if it is one, else the error to report
    /// (usage for a word not among the accepted ones, bad data for a malformed number).
    func refusal(of text: String) -> CLIError? {
        switch value {
        case .flag, .text, .file: return nil
        case .pair:
            return Self.pair(text) == nil
                ? .data("--\(name): '\(Choice.quoted(text))' is not two values separated by a comma") : nil
        case .integer(let range, let note):
            guard let v = Int(text) else { return .data("--\(name): '\(Choice.quoted(text))' is not an integer") }
            if let range, !range.contains(v) {
                return .data("--\(name): \(v) is outside \(range)" + (note.map { " (\($0))" } ?? ""))
            }
            return nil
        case .number(let bound):
            guard let v = Double(text), v.isFinite, bound?.accepts(v) ?? true else {
                return .data(
                    "--\(name): '\(Choice.quoted(text))' is not a number" + (bound.map { " " + $0.description } ?? ""))
            }
            return nil
        case .choice(let words):
            return words.contains(text) ? nil : .usage("--\(name): " + Choice.refusal(text, accepted: words))
        case .size:
            return Self.size(text) == nil
                ? .data("--\(name): '\(Choice.quoted(text))' is not WIDTHxHEIGHT, e.g. 1280x720") : nil
        }
    }

    /// "WxH" as two integers, nil if it is not.
    static func size(_ text: String) -> (width: Int, height: Int)? {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]) else { return nil }
        return (w, h)
    }

    /// "A,B" as two strings, each trimmed of spaces; nil if it is not two.
    static func pair(_ text: String) -> (String, String)? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        return parts.count == 2 ? (parts[0], parts[1]) : nil
    }

    /// The choices of an engine setting: its type's raw values, in declaration order.
    static func words<T: CaseIterable & RawRepresentable>(of type: T.Type) -> [String] where T.RawValue == String {
        Choice.words(of: type)
    }

    /// A switch: `on` or `off` (`Choice.onOff` reads it).
    static let onOff = Value.choice(["on", "off"])
}

/// A titled list of options in a command's help. `shared` names options whose help another
/// command gives (`as for render`): they are listed by name, in one paragraph ending in it.
struct OptionGroup: Sendable {
    let title: String?
    let options: [CLIOption]
    let shared: String?

    init(_ title: String? = nil, _ options: [CLIOption], shared: String? = nil) {
        self.title = title
        self.options = options
        self.shared = shared
    }
}

/// A command: its usage, what it does, and the options it takes, from which its parser and its
/// help text derive.
struct CommandSpec: Sendable {
    let name: String
    /// The line in `fathom help`'s list of commands.
    let summary: String
    /// The usage lines, `usage: fathom NAME ...` and its alternatives.
    let usage: String
    /// What the command does, before its options (paragraphs, as printed).
    let about: String
    let groups: [OptionGroup]
    /// How many of the positionals, from the first, are input files.
    let positionalInputs: Int

    init(
        _ name: String, summary: String, usage: String, about: String = "", groups: [OptionGroup] = [],
        positionalInputs: Int = 0
    ) {
        self.name = name
        self.summary = summary
        self.usage = usage
        self.about = about
        self.groups = groups
        self.positionalInputs = positionalInputs
    }

    var options: [CLIOption] { groups.flatMap(\.options) }

    /// The help text: usage, what it does, then each group of options.
    var help: String {
        var parts = [usage]
        if !about.isEmpty { parts.append(about) }
        for group in groups {
            var lines: [String] = []
            if let title = group.title { lines.append(title + ":") }
            if let shared = group.shared {
                let names = group.options.map { "--" + $0.name }.joined(separator: ", ")
                lines += HelpLayout.wrap(names + " " + shared, indent: 2)
            } else {
                for option in group.options { lines += HelpLayout.entry(option.synopsis, option.help) }
            }
            parts.append(lines.joined(separator: "\n"))
        }
        return parts.joined(separator: "\n\n")
    }
}

/// How help texts are laid out: 100 columns, an option's help from column 25 (on the next line
/// when its name and placeholder do not leave two spaces before it).
enum HelpLayout {
    static let width = 100
    static let helpColumn = 25

    /// `text`'s words in lines of at most `width` columns, each indented by `indent`.
    static func wrap(_ text: String, indent: Int, first: String? = nil) -> [String] {
        let margin = String(repeating: " ", count: indent)
        var lines: [String] = []
        var line = first ?? margin
        var empty = true
        for word in text.split(separator: " ") {
            if !empty && line.count + 1 + word.count > width {
                lines.append(line)
                line = margin
                empty = true
            }
            line += (empty ? "" : " ") + word
            empty = false
        }
        lines.append(line)
        return lines
    }

    /// `  --name VALUE           help...`, the help wrapped from `helpColumn`.
    static func entry(_ synopsis: String, _ help: String) -> [String] {
        let head = "  " + synopsis
        guard head.count + 2 <= helpColumn else {
            return [head] + wrap(help, indent: helpColumn)
        }
        return wrap(help, indent: helpColumn, first: head + String(repeating: " ", count: helpColumn - head.count))
    }
}
