/// What Fathom offers, declared once: `fathom families` and `fathom palettes` print it, the
/// CLI checks names against it, and the help text lists it.
package enum Catalogue {
    /// A parameter of a family or of the colouring: its command-line option, its key in a
    /// location file, the values it takes and its default.
    package struct Parameter: Sendable {
        /// The command-line option with its argument, e.g. `--power P`.
        package let option: String
        /// The key in a location file, e.g. `power` or `color.palette`.
        package let key: String
        /// The values it takes, in words.
        package let values: String
        /// Its default, in words.
        package let defaultValue: String
        /// What it sets.
        package let meaning: String
    }

    /// A family or a palette with what it is and its parameters.
    package struct Entry: Sendable {
        /// The name the command line and location files use, e.g. `mandelbrot`.
        package let name: String
        /// One line: the iteration (for a family) or the look (for a palette).
        package let summary: String
        /// The parameters of this family alone (none for a palette).
        package let parameters: [Parameter]
    }

    /// Parameters every family has.
    package static let viewParameters: [Parameter] = [
        Parameter(
            option: "--center RE,IM", key: "center", values: "decimal strings of any length",
            defaultValue: "the family's preset",
            meaning: "the view's center"),
        Parameter(
            option: "--radius R", key: "radius", values: "decimal > 0 (or --zoom Z: R = 2 / Z)",
            defaultValue: "the family's preset",
            meaning: "half the shorter image side"),
        Parameter(
            option: "--rotation DEG", key: "rotation", values: "any real", defaultValue: "0",
            meaning: "counter-clockwise rotation about the center"),
        Parameter(
            option: "--iterations N", key: "maxIterations", values: "1...\(Location.maximumIterations)",
            defaultValue: "the family's preset",
            meaning: "iteration limit"),
    ]

    /// The families: `mandelbrot`, `multibrot`, `julia` and `newton`, with their own parameters.
    package static let families: [Entry] = [
        Entry(
            name: "mandelbrot",
            summary: "z0 = 0, z <- z^2 + c, c = the pixel; perturbation, BLA and glitch correction at any depth",
            parameters: []),
        Entry(
            name: "multibrot", summary: "z0 = 0, z <- z^p + c, integer p; perturbation and BLA at any depth",
            parameters: [
                Parameter(
                    option: "--power P", key: "power",
                    values: "\(Family.powerRange.lowerBound)...\(Family.powerRange.upperBound)",
                    defaultValue: "3", meaning: "the power p")
            ]),
        Entry(
            name: "julia", summary: "z0 = the pixel, z <- z^2 + c for a fixed c; perturbation at any depth",
            parameters: [
                Parameter(
                    option: "--julia RE,IM", key: "juliaC", values: "decimal strings of any length",
                    defaultValue: juliaDefault, meaning: "the parameter c")
            ]),
        Entry(
            name: "newton",
            summary:
                "z <- z - p(z) / p'(z); coloured by the root reached and the iterations taken; to double-double depth",
            parameters: [
                Parameter(
                    option: "--newton POLY", key: "newton",
                    values:
                        "a polynomial in z of degree 2...\(NewtonPolynomial.maximumDegree) with real coefficients, e.g. "
                        + NewtonPolynomial.builtIn.joined(separator: ", "),
                    defaultValue: "z^3-1", meaning: "the polynomial p")
            ]),
    ]

    /// Julia's c in its preset, the default.
    static var juliaDefault: String {
        guard case .julia(let re, let im)? = Presets.named("julia")?.location.family else { return "" }
        return "\(re),\(im)"
    }

    /// The built-in palettes, one entry for each case of `Palette`.
    package static let palettes: [Entry] = Palette.allCases.map {
        Entry(name: $0.rawValue, summary: $0.summary, parameters: [])
    }

    /// Parameters of the colouring, for every palette.
    package static let colorParameters: [Parameter] = [
        Parameter(
            option: "--palette NAME", key: "color.palette", values: palettes.map(\.name).joined(separator: ", "),
            defaultValue: ColorSettings().palette.rawValue, meaning: "the palette"),
        Parameter(
            option: "--gradient FILE", key: "color.gradient",
            values: "a gradient file: one stop a line, RRGGBB or POSITION RRGGBB",
            defaultValue: "none", meaning: "a user palette instead of --palette (stored whole in the location)"),
        Parameter(
            option: "--density X", key: "color.density", values: "> 0", defaultValue: "1 (auto: 4 across the view)",
            meaning: "palette cycles per 32 iterations (histogram: across the view)"),
        Parameter(
            option: "--offset X", key: "color.offset", values: "any real", defaultValue: "0",
            meaning: "phase offset, in cycles"),
        Parameter(
            option: "--smooth on|off", key: "color.smooth", values: "on, off", defaultValue: "on",
            meaning: "colour by the smooth count nu = n + 1 - log2(log2 |z|), or by n"),
        Parameter(
            option: "--color-scale S", key: "color.scale",
            values: Choice.words(of: ColorSettings.Scale.self).joined(separator: ", "),
            defaultValue: ColorSettings().scale.rawValue,
            meaning: "auto: the view's histogram; log: 32 ln(1 + nu); histogram: 32 x the share of the view below nu"),
        Parameter(
            option: "--boundary W", key: "color.boundaryWidth", values: "pixels > 0, or off", defaultValue: "off",
            meaning: "boundary shading: darken within W pixels of the set by the distance estimate"),
        Parameter(
            option: "--slope A[,H[,S]]", key: "color.slope",
            values: "angle in degrees, height > 0, strength 0...1, or off",
            defaultValue: "off (45,1.5,0.75 when given)", meaning: "slope lighting from the derivative's direction"),
        Parameter(
            option: "--trap point:RE,IM | cross:RE,IM", key: "color.trap",
            values: "a point or cross in the z plane, or off",
            defaultValue: "off", meaning: "colour by the orbit's closest approach (BLA off while tracing it)"),
        Parameter(
            option: "--interior RRGGBB", key: "color.interior", values: "hexadecimal colour", defaultValue: "000000",
            meaning: "colour of points that do not escape"),
    ]

    /// The families' names, in catalogue order.
    package static var familyNames: [String] { families.map(\.name) }
    /// The palettes' names, in catalogue order.
    package static var paletteNames: [String] { palettes.map(\.name) }

    /// The palette called `name` (any case).
    package static func palette(named name: String) -> Palette? { Palette(rawValue: name.lowercased()) }

    /// The catalogue entry of the family called `name` (any case).
    package static func family(named name: String) -> Entry? { families.first { $0.name == name.lowercased() } }

    /// `entries` as text: each name and summary, then its parameters indented.
    package static func listing(_ entries: [Entry], common: [Parameter], commonTitle: String) -> String {
        var lines: [String] = []
        func describe(_ p: Parameter) -> String {
            "    \(p.option): \(p.meaning); \(p.values); default \(p.defaultValue) (location file: \(p.key))"
        }
        for e in entries {
            lines.append("\(e.name): \(e.summary)")
            lines += e.parameters.map(describe)
        }
        lines.append("")
        lines.append(commonTitle)
        lines += common.map(describe)
        return lines.joined(separator: "\n")
    }
}
