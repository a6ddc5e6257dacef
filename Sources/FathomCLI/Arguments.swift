import Fathom

/// A minimal option parser: `--name value`, `--name=value`, `--flag`, and positionals.
/// A value may start with '-' (negative coordinates), since it is taken by position.
///
/// Parsing declares the command's input files (`CommandInputs`): the values of the options
/// that name one (`inputOptions`) and the first `positionalInputs` positionals. Every output
/// the process then resolves is refused if it is one of them, so no command can overwrite
/// what it reads.
struct Arguments {
    /// The options, of any command, whose value is a file or folder the command reads.
    static let inputOptions: Set<String> = ["location", "gradient", "load-reference", "expmap", "frames"]

    private(set) var options: [String: String] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []

    /// `valued`: options that take a value; `flagNames`: options that do not;
    /// `positionalInputs`: how many of the positionals, from the first, are input files.
    init(_ args: [String], valued: Set<String>, flagNames: Set<String>, positionalInputs: Int) throws(CLIError) {
        var i = 0
        while i < args.count {
            let arg = args[i]
            i += 1
            guard arg.hasPrefix("--") else {
                if arg.hasPrefix("-") && arg.count > 1 && arg != "-h" { throw .usage("unknown option '\(arg)'") }
                if arg == "-h" { flags.insert("help"); continue }
                positionals.append(arg)
                continue
            }
            var name = String(arg.dropFirst(2))
            var value: String?
            if let eq = name.firstIndex(of: "=") {
                value = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            if flagNames.contains(name) {
                guard value == nil else { throw .usage("option '--\(name)' takes no value") }
                flags.insert(name)
            } else if valued.contains(name) {
                if value == nil {
                    guard i < args.count else { throw .usage("option '--\(name)' needs a value") }
                    value = args[i]
                    i += 1
                }
                guard options[name] == nil else { throw .usage("option '--\(name)' given twice") }
                options[name] = value
            } else {
                throw .usage("unknown option '--\(name)'")
            }
        }
        CommandInputs.declare(
            Self.inputOptions.sorted().compactMap { options[$0] } + positionals.prefix(positionalInputs))
    }

    subscript(name: String) -> String? { options[name] }
    func has(_ flag: String) -> Bool { flags.contains(flag) }

    func int(_ name: String) throws(CLIError) -> Int? {
        guard let text = options[name] else { return nil }
        guard let v = Int(text) else { throw .data("--\(name): '\(text)' is not an integer") }
        return v
    }

    func double(_ name: String) throws(CLIError) -> Double? {
        guard let text = options[name] else { return nil }
        guard let v = Double(text), v.isFinite else { throw .data("--\(name): '\(text)' is not a number") }
        return v
    }

    /// `on` or `off` as a Bool (nil: not given); another value is a usage error (`Choice`).
    func onOff(_ name: String) throws(CLIError) -> Bool? {
        guard let text = options[name] else { return nil }
        guard let value = Choice.onOff(text) else {
            throw .usage("--\(name): " + Choice.refusal(text, accepted: ["on", "off"]))
        }
        return value
    }

    /// "WxH" as two integers (range checks are ImageSize's).
    func size(_ name: String = "size") throws(CLIError) -> (width: Int, height: Int)? {
        guard let text = options[name] else { return nil }
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]) else {
            throw .data("--\(name): '\(text)' is not WIDTHxHEIGHT, e.g. 1280x720")
        }
        return (w, h)
    }

    /// "A,B" as two strings.
    func pair(_ name: String) throws(CLIError) -> (String, String)? {
        guard let text = options[name] else { return nil }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard parts.count == 2 else { throw .data("--\(name): '\(text)' is not two values separated by a comma") }
        return (parts[0], parts[1])
    }
}

extension String {
    func trimmingCharacters(in set: Set<Character>) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}

extension Set where Element == Character {
    static let whitespaces: Set<Character> = [" ", "\t"]
}
