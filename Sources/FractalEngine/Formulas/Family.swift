import ArbitraryPrecision

/// The fractal families Fathom renders, with their parameters.
///
/// Parameters that are coordinates (Julia's c) stay decimal strings, like a location's center,
/// so that deep renders can read them at any precision.
public enum Family: Sendable, Equatable, Hashable {
    /// z0 = 0, z(n+1) = z(n)^2 + c, c = the pixel.
    case mandelbrot
    /// z0 = 0, z(n+1) = z(n)^p + c, integer p in `Family.powerRange`.
    case multibrot(power: Int)
    /// z0 = the pixel, z(n+1) = z(n)^2 + c for a fixed c given as decimal strings.
    case julia(re: String, im: String)
    /// z(n+1) = z - p(z)/p'(z); the result is the root reached and the iterations it took.
    case newton(NewtonPolynomial)

    /// The Multibrot powers Fathom supports.
    public static let powerRange = 2...16

    /// The escape-time power p (2 for Mandelbrot and Julia; the polynomial degree for Newton).
    public var power: Int {
        switch self {
        case .mandelbrot, .julia: 2
        case .multibrot(let p): p
        case .newton(let poly): poly.degree
        }
    }

    /// The number of roots a render of the family numbers in `IterationField.root` (Newton:
    /// the polynomial's degree), 0 for the escape-time families.
    package var rootCount: Int {
        if case .newton(let poly) = self { poly.degree } else { 0 }
    }

    /// A family without its parameters: what a location file's `family` names.
    public enum Kind: String, CaseIterable, Sendable, Hashable, Codable {
        /// `Family.mandelbrot`.
        case mandelbrot
        /// `Family.multibrot(power:)`.
        case multibrot
        /// `Family.julia(re:im:)`.
        case julia
        /// `Family.newton(_:)`.
        case newton

        /// The kind `text` names, in any case (`MandelBrot`), nil for none.
        public init?(named text: String) {
            guard let kind = Choice.parse(text, as: Kind.self, ignoringCase: true) else { return nil }
            self = kind
        }

        /// Decodes a name in any case; another is `DecodingError.dataCorrupted` with the
        /// one-line refusal (`'tricorn' is not one of mandelbrot, multibrot, julia, newton`).
        public init(from decoder: any Decoder) throws {
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let kind = Kind(named: text) else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: Choice.refusal(text, Kind.self)))
            }
            self = kind
        }
    }

    /// The family's kind.
    public var kind: Kind {
        switch self {
        case .mandelbrot: .mandelbrot
        case .multibrot: .multibrot
        case .julia: .julia
        case .newton: .newton
        }
    }

    /// The family's name in location files and on the command line.
    public var name: String { kind.rawValue }

    /// The names `name` can take.
    public static let names = Kind.allCases.map(\.rawValue)

    /// Julia's parameter c at `precision` (nil for the other families): the one place it is
    /// parsed. A location that passed `Location.validate` always parses.
    public func juliaParameter(precision: Precision) throws(LocationError) -> BigComplex? {
        guard case .julia(let re, let im) = self else { return nil }
        do { return try BigComplex(parsingRe: re, im: im, precision: precision) } catch {
            throw .badNumber(field: "julia", text: "\(re), \(im)")
        }
    }
}
