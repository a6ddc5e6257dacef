import ArbitraryPrecision
import FractalNumerics

/// A location mapped onto a pixel grid: the center and spacing in MPFR, and the pixel
/// coordinates in double-double (Documentation/Conventions.md):
/// s = 2 radius / min(W, H); pixel (x, y) samples
/// re + (x + 0.5 - W/2) s, im + (H/2 - y - 0.5) s, then rotated about the center.
public struct Viewport: Sendable {
    /// The image width in pixels (on an exponential map, the map's width).
    public let width: Int
    /// The image height in pixels (on an exponential map, the band's rows).
    public let height: Int
    /// The precision the center was read at: enough for its digits and 64 bits below s.
    public let precision: Precision
    /// What a reference orbit needs: 64 bits below the spacing (Documentation/Design.md section 4). Digits
    /// of the center beyond that move it by less than 2^-64 of a pixel; pixel deltas are
    /// still taken from the exact pixel points (at `precision`).
    package let orbitPrecision: Precision
    /// The center, read at `precision`.
    public let center: BigComplex
    /// The radius at `precision`: the location's on the flat image; on an exponential map, the
    /// radius of the band's outermost row.
    public let radius: BigFloat
    /// The pixel spacing s at `precision`: 2 radius / min(W, H) on the flat image; on an
    /// exponential map, the pixel size at the band's innermost row.
    public let spacing: BigFloat
    /// The center in double-double.
    @usableFromInline package let centerDD: Complex<DoubleDouble>
    /// The pixel spacing s in double-double.
    @usableFromInline package let spacingDD: DoubleDouble
    /// cos and sin of the rotation; exactly (1, 0) without one.
    @usableFromInline package let rotation: (cos: Double, sin: Double)
    /// How pixels map to the plane: the flat image, or rows of an exponential map.
    public let projection: Projection

    /// How a viewport's pixels map to the plane.
    public enum Projection: Sendable, Equatable {
        /// The flat image of Documentation/Conventions.md.
        case flat
        /// `rows` of an exponential map `map` (`ExponentialMap`): pixel (x, y) is the map's
        /// row `rows.lowerBound + y`. `spacing` is the pixel size at the band's innermost row.
        case exponential(ExponentialMap, rows: Range<Int>)
    }

    /// Whether a pixel's real part depends on its column only and its imaginary part on its row
    /// only (flat and without rotation): then grids are computed per column and per row.
    package var isSeparable: Bool { projection == .flat && rotation == (1, 0) }

    /// The flat viewport of `location` at `width` x `height` pixels.
    ///
    /// Throws `LocationError` when the location fails `Location.validate()` or the size fails
    /// `ImageSize.validate(width:height:)`.
    public init(location: Location, width: Int, height: Int) throws(LocationError) {
        try location.validate()
        try ImageSize.validate(width: width, height: height)
        self.width = width
        self.height = height
        let r64: BigFloat
        do { r64 = try BigFloat(parsing: location.radius, precision: Precision(bits: 64)) } catch {
            throw .badNumber(field: "radius", text: location.radius)
        }
        // -log2(s) <= -exponent(radius) + log2(min side) + 1.
        let spacingBits = max(0, -r64.exponent) + Viewport.bitLength(min(width, height)) + 1
        let digits = max(location.centerRe.utf8.count, location.centerIm.utf8.count, location.radius.utf8.count)
        let bits = max(Precision.forDecimalDigits(digits).bits, spacingBits + 64, 128)
        precision = Precision(bits: bits)
        orbitPrecision = Precision(bits: max(spacingBits + 64, 128))
        do {
            center = try BigComplex(parsingRe: location.centerRe, im: location.centerIm, precision: precision)
            radius = try BigFloat(parsing: location.radius, precision: precision)
        } catch {
            throw .badNumber(field: "center", text: "\(location.centerRe), \(location.centerIm)")
        }
        spacing = radius.timesPowerOfTwo(1) / BigFloat(min(width, height), precision: precision)
        centerDD = center.doubleDoubleValue
        spacingDD = spacing.doubleDoubleValue
        rotation = Viewport.rotation(degrees: location.rotation)
        projection = .flat
    }

    /// The viewport of rows `rows` of exponential map `map` of `location` (its center,
    /// rotation and precision; `ExponentialMap` says where each row and column lies).
    public init(location: Location, map: ExponentialMap, rows: Range<Int>) throws(LocationError) {
        try location.validate()
        guard !rows.isEmpty, rows.lowerBound >= 0, rows.upperBound <= map.height else {
            throw .badSize(width: map.width, height: rows.count)
        }
        try ImageSize.validate(width: map.width, height: rows.count)
        width = map.width
        height = rows.count
        let innermost = map.log2Radius(row: rows.upperBound - 1) + map.log2AngleStep
        // -log2(s) <= -floor(log2 s): the flat view's bits, with the spacing's own exponent.
        let spacingBits = max(0, -Int(innermost.rounded(.down))) + 1
        let digits = max(location.centerRe.utf8.count, location.centerIm.utf8.count)
        let bits = max(Precision.forDecimalDigits(digits).bits, spacingBits + 64, 128)
        precision = Precision(bits: bits)
        orbitPrecision = Precision(bits: max(spacingBits + 64, 128))
        do {
            center = try BigComplex(parsingRe: location.centerRe, im: location.centerIm, precision: precision)
        } catch {
            throw .badNumber(field: "center", text: "\(location.centerRe), \(location.centerIm)")
        }
        spacing = ExponentialMap.powerOfTwo(innermost, precision: precision)
        radius = ExponentialMap.powerOfTwo(map.log2Radius(row: rows.lowerBound), precision: precision)
        centerDD = center.doubleDoubleValue
        spacingDD = spacing.doubleDoubleValue
        rotation = Viewport.rotation(degrees: location.rotation)
        projection = .exponential(map, rows: rows)
    }

    /// The viewport `settings` ask for: flat at their size, or their exponential map's rows
    /// (whose count and width the size must match).
    public init(location: Location, settings: RenderSettings) throws(LocationError) {
        switch settings.projection {
        case .flat:
            try self.init(location: location, width: settings.width, height: settings.height)
        case .exponential(let map, let rows):
            guard settings.width == map.width && settings.height == rows.count else {
                throw .badSize(width: settings.width, height: settings.height)
            }
            try self.init(location: location, map: map, rows: rows)
        }
    }

    static func rotation(degrees: Double) -> (cos: Double, sin: Double) {
        if degrees == 0 { return (1, 0) }
        let radians = degrees * .pi / 180
        return (Math.cos(radians), Math.sin(radians))
    }

    static func bitLength(_ n: Int) -> Int { Int.bitWidth - n.leadingZeroBitCount }

    /// log2 of the pixel spacing (about -exponent; exact to a fraction of a bit).
    public var log2Spacing: Double { spacing.floatExpValue.log2Magnitude }

    /// The pixel offset from the center in units of s, before rotation: half-integers, exact,
    /// on the flat image; on an exponential map's rows, the Doubles `ExponentialMap.offset`
    /// gives (their point is the center plus s times them, exactly, wherever it is computed).
    @inlinable @inline(__always)
    package func offsetUnits(x: Int, y: Int) -> (Double, Double) {
        switch projection {
        case .flat:
            return (Double(2 * x + 1 - width) * 0.5, Double(height - 2 * y - 1) * 0.5)
        case .exponential(let map, let rows):
            return map.offset(column: x, rowsInward: rows.count - 1 - y)
        }
    }

    /// The offset (u, v) turned by the view's rotation: the one place the rotation is
    /// applied to pixel offsets (the kernels' deltas, the pixel points, exact and double-double).
    @inlinable @inline(__always)
    package func rotated(_ u: Double, _ v: Double) -> (Double, Double) {
        (u * rotation.cos - v * rotation.sin, u * rotation.sin + v * rotation.cos)
    }

    /// The point pixel (x, y) samples, in double-double.
    @inlinable
    package func point(x: Int, y: Int) -> Complex<DoubleDouble> {
        let (u, v) = offsetUnits(x: x, y: y)
        let (ru, rv) = rotated(u, v)
        return Complex(centerDD.re + spacingDD.scaled(by: ru), centerDD.im + spacingDD.scaled(by: rv))
    }

    /// The point pixel (x, y) samples, in MPFR at `precision` (the oracle's rounding order
    /// when there is no rotation: re + ((2x + 1 - W) s) / 2).
    public func exactPoint(x: Int, y: Int) -> BigComplex {
        let (u, v) = offsetUnits(x: x, y: y)
        let (ru, rv) = rotated(u, v)
        let re = center.re + (spacing * BigFloat(2 * ru, precision: precision)).timesPowerOfTwo(-1)
        let im = center.im + (spacing * BigFloat(2 * rv, precision: precision)).timesPowerOfTwo(-1)
        return BigComplex(re, im)
    }

    /// How far `point` lies from the center, in pixels (spacings).
    public func distanceInPixels(of point: BigComplex) -> Double {
        let s = spacing.floatExpValue
        let dx = ((point.re - center.re).floatExpValue / s).doubleValue,
            dy = ((point.im - center.im).floatExpValue / s).doubleValue
        return (dx * dx + dy * dy).squareRoot()
    }

    /// How far the view's farthest pixel lies from the center, in pixels: a corner of a flat
    /// view, the outermost row of an exponential map.
    public var farthestPixelDistance: Double {
        if case .exponential(let map, let rows) = projection {
            let (u, v) = map.offset(column: 0, rowsInward: rows.count - 1)
            return (u * u + v * v).squareRoot()
        }
        return (Double(width) * Double(width) + Double(height) * Double(height)).squareRoot() / 2
    }

    /// Whether `point` lies within the image (its offset from the center, turned back by
    /// the rotation, within half the width and height in pixel spacings).
    /// On an exponential map's rows: whether it lies within the band's outer radius.
    public func contains(_ point: BigComplex) -> Bool {
        let s = spacing.floatExpValue
        let dx = ((point.re - center.re).floatExpValue / s).doubleValue,
            dy = ((point.im - center.im).floatExpValue / s).doubleValue
        if case .exponential(let map, let rows) = projection {
            let (u, v) = map.offset(column: 0, rowsInward: rows.count - 1)
            return dx * dx + dy * dy <= u * u + v * v
        }
        let u = dx * rotation.cos + dy * rotation.sin, v = -dx * rotation.sin + dy * rotation.cos
        return Swift.abs(u) <= Double(width) / 2 && Swift.abs(v) <= Double(height) / 2
    }
}
