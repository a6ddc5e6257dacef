import ArbitraryPrecision
import Foundation

/// Where to look: a family, a center and radius as decimal strings (any length and exponent),
/// a rotation and an iteration limit. The contract of Documentation/Conventions.md.
///
/// `radius` is half of the shorter image side in complex units; `zoom = 2 / radius`.
public struct Location: Sendable, Equatable {
    /// A name for the location (a location file's `name`); nil for none.
    public var name: String?
    /// The fractal family and its parameters: power, Julia parameter or Newton polynomial.
    public var family: Family
    /// The real part of the center, as a decimal string (any length and exponent).
    public var centerRe: String
    /// The imaginary part of the center, as a decimal string (any length and exponent).
    public var centerIm: String
    /// Half of the shorter image side in complex units, as a decimal string greater than zero.
    public var radius: String
    /// Counter-clockwise rotation of the view about its center, in degrees.
    public var rotation: Double
    /// The iteration limit, 1...`maximumIterations`: a pixel that has not escaped (or, for
    /// Newton, converged) after this many iterations counts as bounded.
    public var maxIterations: Int

    /// A location from its fields, as written: `validate()` checks them.
    public init(
        name: String? = nil, family: Family = .mandelbrot, centerRe: String, centerIm: String,
        radius: String, rotation: Double = 0, maxIterations: Int
    ) {
        self.name = name
        self.family = family
        self.centerRe = centerRe
        self.centerIm = centerIm
        self.radius = radius
        self.rotation = rotation
        self.maxIterations = maxIterations
    }

    /// The largest iteration limit (escape counts are stored as UInt32).
    public static let maximumIterations = 2_000_000_000
    /// The largest |re| and |im| of a center or a Julia parameter, and the largest radius:
    /// every family's set lies within a few units of 0, and beyond 2^53 a pixel spacing of
    /// a view of any size would not be a Double.
    public static let maximumCoordinate = "1e10"
    /// The smallest radius: a reference orbit at 3.3 million bits, whose every step takes
    /// tens of milliseconds here (Documentation/Reliability.md).
    public static let minimumRadius = "1e-1000000"
    /// The most characters of one decimal number: a million digits carry a center to the
    /// smallest radius with room to spare.
    public static let maximumCharacters = 1_100_000
    /// The two limits as numbers (64 bits: the comparisons only need the magnitude).
    public static let maximumCoordinateValue = try! BigFloat(parsing: maximumCoordinate, precision: Precision(bits: 64))
    /// `minimumRadius` as a number, at 64 bits.
    public static let minimumRadiusValue = try! BigFloat(parsing: minimumRadius, precision: Precision(bits: 64))

    /// Checks every field a user can get wrong, with a message naming the field, and the
    /// limits above, before any work: a location that passes converts to the engine's types
    /// without overflow.
    public func validate() throws(LocationError) {
        var numbers = [("center.re", centerRe), ("center.im", centerIm), ("radius", radius)]
        if case .julia(let re, let im) = family { numbers += [("julia.re", re), ("julia.im", im)] }
        let bits = Precision(bits: 64)
        let largest = Location.maximumCoordinateValue, smallest = Location.minimumRadiusValue
        for (field, text) in numbers {
            guard text.utf8.count <= Location.maximumCharacters else {
                throw .tooLong(field: field, characters: text.utf8.count)
            }
            guard BigFloat.isDecimalNumber(text) else { throw .badNumber(field: field, text: text) }
            let limit =
                field == "radius"
                ? "\(Location.minimumRadius) <= radius <= \(Location.maximumCoordinate)"
                : "|value| <= \(Location.maximumCoordinate)"
            // Text MPFR cannot hold (an exponent past its range) is out of range too.
            guard let value = try? BigFloat(parsing: text, precision: bits) else {
                throw .outOfRange(field: field, text: text, limit: limit)
            }
            if field == "radius" {
                guard value.signum > 0 else { throw .nonPositiveRadius(radius) }
                guard !(value < smallest), !(largest < value) else {
                    throw .outOfRange(field: field, text: text, limit: limit)
                }
            } else {
                guard !(largest < (value.signum < 0 ? -value : value)) else {
                    throw .outOfRange(field: field, text: text, limit: limit)
                }
            }
        }
        guard rotation.isFinite else { throw .badNumber(field: "rotation", text: "\(rotation)") }
        guard maxIterations >= 1 && maxIterations <= Location.maximumIterations else {
            throw .badIterations(maxIterations)
        }
        if case .multibrot(let p) = family {
            guard Family.powerRange.contains(p) else { throw .badPower(p) }
        }
    }
}

/// What is wrong with a location or render request, in words a user can act on.
public enum LocationError: Error, Equatable, CustomStringConvertible {
    /// A field whose text is not a decimal number (or a rotation that is not finite).
    case badNumber(field: String, text: String)
    /// A number outside the range Fathom renders (`limit` says which).
    case outOfRange(field: String, text: String, limit: String)
    /// A decimal number longer than `Location.maximumCharacters`.
    case tooLong(field: String, characters: Int)
    /// A radius, as written, that is not greater than zero.
    case nonPositiveRadius(String)
    /// An iteration limit outside 1...`Location.maximumIterations`.
    case badIterations(Int)
    /// A Multibrot power outside `Family.powerRange`.
    case badPower(Int)
    /// Text that is not a Newton polynomial of degree 2...`NewtonPolynomial.maximumDegree` with
    /// coefficients up to 1e10.
    case badPolynomial(String)
    /// A family name that is not one of `Family.names`.
    case unknownFamily(String)
    /// An image size outside the limits of `ImageSize`, or one that does not match the rows of
    /// an exponential map.
    case badSize(width: Int, height: Int)
    /// A required field of a location file that is absent or malformed (its name, with what it
    /// must hold).
    case missingField(String)
    /// A number that must be greater than zero (a zoom factor).
    case notPositive(field: String, text: String)

    /// The error in one line: the field, the value and the accepted range or form.
    public var description: String {
        switch self {
        case .badNumber(let field, let text):
            "\(field): \(ArbitraryPrecisionError.notADecimalNumber(text))"
        case .outOfRange(let field, let text, let limit):
            "\(field): '\(text.count > 40 ? String(text.prefix(37)) + "..." : text)' is outside the range Fathom renders (\(limit))"
        case .tooLong(let field, let characters):
            "\(field): a number of \(characters) characters is longer than \(Location.maximumCharacters)"
        case .nonPositiveRadius(let text):
            "radius: '\(text)' must be greater than zero"
        case .badIterations(let n):
            "iterations: \(n) is outside 1...\(Location.maximumIterations)"
        case .badPower(let p):
            "power: \(p) is outside \(Family.powerRange.lowerBound)...\(Family.powerRange.upperBound)"
        case .badPolynomial(let text):
            "newton: '\(text.count > 40 ? String(text.prefix(37)) + "..." : text)' is not a polynomial of degree 2...\(NewtonPolynomial.maximumDegree) with coefficients up to 1e10, like z^3-2z+2"
        case .unknownFamily(let name):
            "family: unknown family '\(name)' (known: \(Family.names.joined(separator: ", ")))"
        case .badSize(let w, let h):
            "size: \(w)x\(h) is outside 1...\(ImageSize.maximumSide) per side or over \(ImageSize.maximumPixels) pixels"
        case .missingField(let name):
            "location: missing field '\(name)'"
        case .notPositive(let field, let text):
            "\(field): '\(text)' must be greater than zero"
        }
    }
}

/// Image size limits: each side at most 32768 pixels and at most 100 million pixels in all
/// (an IterationField takes 17 bytes a pixel, so the largest needs about 1.7 GB).
public enum ImageSize {
    /// The most pixels along one side: 32768.
    public static let maximumSide = 32768
    /// The most pixels in one image: 100 million.
    public static let maximumPixels = 100_000_000

    /// Throws `LocationError.badSize` unless each side is within 1...`maximumSide` and the image
    /// has at most `maximumPixels` pixels.
    public static func validate(width: Int, height: Int) throws(LocationError) {
        guard width >= 1, height >= 1, width <= maximumSide, height <= maximumSide,
            width * height <= maximumPixels
        else { throw .badSize(width: width, height: height) }
    }
}

extension LocationError: LocalizedError {
    /// The one-line message (`description`), so that `localizedDescription` reads it too.
    public var errorDescription: String? { description }
}
