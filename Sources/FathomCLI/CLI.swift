import Fathom
import Foundation

/// The commands of `fathom`.
enum CLI {
    static func run(_ args: [String]) throws {
        guard let command = args.first else {
            print(Commands.overview)
            return
        }
        let rest = Array(args.dropFirst())
        switch command {
        case "render": try RenderCommand.run(rest)
        case "verify": try VerifyCommand.run(rest)
        case "presets": try PresetsCommand.run(rest)
        case "sequence": try SequenceCommand.run(rest)
        case "expmap": try ExpmapCommand.run(rest)
        case "video": try VideoCommand.run(rest)
        case "find": try FindCommand.run(rest)
        case "explore": try ExploreCommand.run(rest)
        case "info": try InfoCommand.run(rest)
        case "convert": try ConvertCommand.run(rest)
        case "families": try CatalogueCommand.run(rest, topic: "families")
        case "palettes": try CatalogueCommand.run(rest, topic: "palettes")
        case "help", "--help", "-h":
            guard rest.count <= 1 else { throw CLIError.usage("help takes one command name") }
            if let topic = rest.first {
                guard let text = Commands.help(for: topic) else { throw CLIError.usage("no help for '\(topic)'") }
                print(text)
            } else {
                print(Commands.overview)
            }
        case "version", "--version":
            guard let parsed = try Commands.version.arguments(rest) else { return }
            guard parsed.positionals.isEmpty else { throw CLIError.usage("version takes no arguments") }
            print("fathom \(FathomInfo.version) (MPFR \(mpfrVersion))")
        default:
            throw CLIError.usage("unknown command '\(command)'")
        }
    }
}

enum PresetsCommand {
    static func run(_ args: [String]) throws {
        guard let parsed = try Commands.presets.arguments(args) else { return }
        guard parsed.positionals.isEmpty else { throw CLIError.usage("presets takes no arguments") }
        print(
            pad("name", 24) + pad("family", 12) + pad("radius", 12) + pad("iterations", 12) + pad("path", 16) + "about")
        for p in Presets.all {
            print(
                pad(p.name, 24) + pad(p.location.family.name, 12) + pad(shortRadius(p.location.radius), 12)
                    + pad("\(p.location.maxIterations)", 12)
                    + pad(p.path.rawValue, 16) + p.summary)
        }
    }

    /// A radius as three significant digits and its exponent (9.76e-1299), never cut.
    static func shortRadius(_ text: String) -> String {
        guard text.count > 11, let value = try? BigFloat(parsing: text, precision: Precision(bits: 64)) else {
            return text
        }
        return value.decimalString(significantDigits: 3)
    }
}

/// `fathom families` and `fathom palettes`: the library's catalogue.
enum CatalogueCommand {
    static func run(_ args: [String], topic: String) throws {
        let command = topic == "families" ? Commands.families : Commands.palettes
        guard let parsed = try command.arguments(args) else { return }
        guard parsed.positionals.isEmpty else { throw CLIError.usage("\(topic) takes no arguments") }
        if topic == "families" {
            print(Catalogue.listing(Catalogue.families, common: Catalogue.viewParameters, commonTitle: "every family:"))
        } else {
            print(
                Catalogue.listing(
                    Catalogue.palettes, common: Catalogue.colorParameters, commonTitle: "colouring, with any palette:"))
        }
    }
}

/// `s` followed by spaces up to `n` characters (at least one space).
func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count) }
