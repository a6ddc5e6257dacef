import Fathom

/// The parser of a command's arguments, derived from its declared options (`CommandSpec`,
/// `CLIOption`): `--name value`, `--name=value`, `--flag`, `--help` or `-h`, and positionals. A
/// value may start with '-' (negative coordinates), since it is taken by position.
///
/// An unknown option, a flag given a value, a value missing or an option given twice is a usage
/// error (64), found first; then each value's kind is checked by its declaration
/// (`CLIOption.refusal`), in the order given: a word not among an option's choices (or not
/// on/off) is a usage error (64), a malformed number, size or pair bad data (65). So a command
/// reads only values of the right form; what a value means (a radius's range, a polynomial) the
/// command checks after, still before any work.
///
/// Parsing declares the command's input files (`CommandInputs`): the values of the options
/// that name one (`CLIOption.readsInput`) and the command's first `positionalInputs`
/// positionals. Every output the process then resolves is refused if it is one of them, so no
/// command can overwrite what it reads.
struct Arguments {
    private(set) var options: [String: String] = [:]
    /// The valued options' names in the order given.
    private var order: [String] = []
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []
    /// Whether `--help` or `-h` was given.
    private(set) var wantsHelp = false

    init(_ args: [String], for command: CommandSpec) throws(CLIError) {
        let declared = Dictionary(command.options.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        // A name declared twice for one command is the declarations' mistake: every command
        // fails (CLIDocumentationTests runs each one), never one meaning silently winning.
        guard declared.count == command.options.count else {
            throw .other("internal: \(command.name) declares an option twice")
        }
        var i = 0
        while i < args.count {
            let arg = args[i]
            i += 1
            if arg == "-h" || arg == "--help" {
                wantsHelp = true
                continue
            }
            guard arg.hasPrefix("--") else {
                if arg.hasPrefix("-") && arg.count > 1 { throw .usage("unknown option '\(arg)'") }
                positionals.append(arg)
                continue
            }
            var name = String(arg.dropFirst(2))
            var value: String?
            if let eq = name.firstIndex(of: "=") {
                value = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            guard let option = declared[name] else {
                if name == "help" { throw .usage("option '--help' takes no value") }
                throw .usage("unknown option '--\(name)'")
            }
            if !option.takesValue {
                guard value == nil else { throw .usage("option '--\(name)' takes no value") }
                guard flags.insert(name).inserted else { throw .usage("option '--\(name)' given twice") }
                continue
            }
            if value == nil {
                guard i < args.count else { throw .usage("option '--\(name)' needs a value") }
                value = args[i]
                i += 1
            }
            guard options[name] == nil else { throw .usage("option '--\(name)' given twice") }
            options[name] = value
            order.append(name)
        }
        if wantsHelp { return }
        for name in order {
            if let refusal = declared[name]?.refusal(of: options[name]!) { throw refusal }
        }
        CommandInputs.declare(
            command.options.filter(\.readsInput).compactMap { options[$0.name] }
                + positionals.prefix(command.positionalInputs))
    }

    /// The text given for `option` (nil: not given).
    subscript(option: CLIOption) -> String? { options[option.name] }

    /// Whether the flag `option` was given.
    func has(_ option: CLIOption) -> Bool { flags.contains(option.name) }

    /// An integer option's value (checked when parsed).
    func int(_ option: CLIOption) -> Int? { self[option].flatMap { Int($0) } }

    /// A number option's value (checked when parsed).
    func number(_ option: CLIOption) -> Double? { self[option].flatMap { Double($0) } }

    /// An on/off option's value (checked when parsed).
    func onOff(_ option: CLIOption) -> Bool? { self[option].flatMap(Choice.onOff) }

    /// A choice option's value as the engine type whose raw values it takes.
    func choice<T: CaseIterable & RawRepresentable>(_ option: CLIOption, as _: T.Type = T.self) -> T?
    where T.RawValue == String {
        self[option].flatMap { Choice.parse($0, as: T.self) }
    }

    /// A size option's width and height (checked when parsed; their range is `ImageSize`'s).
    func size(_ option: CLIOption) -> (width: Int, height: Int)? { self[option].flatMap(CLIOption.size) }

    /// A pair option's two values (checked when parsed).
    func pair(_ option: CLIOption) -> (String, String)? { self[option].flatMap(CLIOption.pair) }

    /// Refuses positionals: for commands that take none.
    func refusePositionals() throws(CLIError) {
        if let first = positionals.first { throw .usage("unexpected argument '\(first)'") }
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

extension CommandSpec {
    /// This command's arguments parsed; nil when `--help` was given (its help is then printed).
    func arguments(_ args: [String]) throws(CLIError) -> Arguments? {
        let parsed = try Arguments(args, for: self)
        if parsed.wantsHelp {
            print(help)
            return nil
        }
        return parsed
    }
}
