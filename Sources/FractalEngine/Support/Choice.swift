/// The one parser of named values, for every module of the package: a `CaseIterable` enum's
/// raw value as a location file, a settings field or the command line spells it, and the one
/// refusal that lists what is accepted (`'foo' is not one of a, b, c`).
package enum Choice {
    /// The case of `T` whose raw value is `text` (compared in lower case with `ignoringCase`),
    /// nil for none.
    package static func parse<T: CaseIterable & RawRepresentable>(
        _ text: String, as _: T.Type = T.self, ignoringCase: Bool = false
    ) -> T? where T.RawValue == String {
        let key = ignoringCase ? text.lowercased() : text
        return T.allCases.first { (ignoringCase ? $0.rawValue.lowercased() : $0.rawValue) == key }
    }

    /// `'text' is not one of a, b, c` for the values `accepted` (the text as `quoted` shows it).
    package static func refusal(_ text: String, accepted: [String]) -> String {
        "'\(quoted(text))' is not one of \(accepted.joined(separator: ", "))"
    }

    /// A value read from a file or typed as one short line for a message: control characters
    /// and line separators escaped (`\n`), at most 60 characters (then `...`).
    package static func quoted(_ text: String) -> String {
        let escaped = escapedScalars(text)
        return escaped.count > 60 ? escaped.prefix(57).joined() + "..." : escaped.joined()
    }

    /// `text` with control characters and line separators escaped (`\n`), whole: one line.
    package static func oneLine(_ text: String) -> String { escapedScalars(text).joined() }

    private static func escapedScalars(_ text: String) -> [String] {
        text.unicodeScalars.map { scalar in
            [.control, .lineSeparator, .paragraphSeparator].contains(scalar.properties.generalCategory)
                ? scalar.escaped(asASCII: true) : String(scalar)
        }
    }

    /// `T`'s raw values, in declaration order: the words a choice of `T` accepts.
    package static func words<T: CaseIterable & RawRepresentable>(of _: T.Type) -> [String]
    where T.RawValue == String {
        T.allCases.map(\.rawValue)
    }

    /// `refusal(_:accepted:)` with `T`'s raw values, in declaration order.
    package static func refusal<T: CaseIterable & RawRepresentable>(_ text: String, _ type: T.Type) -> String
    where T.RawValue == String {
        refusal(text, accepted: words(of: type))
    }

    /// `on` or `off` as a Bool, nil for another text (options and keys that switch something).
    package static func onOff(_ text: String) -> Bool? {
        switch text {
        case "on": true
        case "off": false
        default: nil
        }
    }
}
