import ArbitraryPrecision
import FractalNumerics

/// An exponential map of a zoom toward a location's center (Documentation/Sequences.md,
/// "Exponential maps"): `width` columns of angle around the center and `height` rows of log
/// radius with square pixels, from radius 2 (row 0, the outermost) in to the location's radius
/// (the last row). Row j's pixels lie at radius 2^(1 - (j + 1/2) k), k = 2 pi / (W ln 2), and
/// column x at the angle 2 pi (x + 1/2) / W, counter-clockwise from the positive real axis (then
/// turned by the location's rotation). A frame of the zoom at any radius between is a
/// reprojection of the rows around it.
///
/// Kalles Fraktaler's exponential zoom (`init(keyframeWidth:log2Radius:)`) is the same map in
/// another layout: files of W x H rows, H = ceil(W ln 2 / (2 pi)), one octave each, numbered
/// from the deepest; file k's row y at radius rho 2^(k - 1) hypot(W, H) / H 2^(-y / H) (rho the
/// location's radius, so row 0 lies on the circumcircle of a flat W x H frame at radius
/// rho 2^(k - 1)) and column x at the angle 2 pi x / W. Its rows run from the outermost file's
/// first row in, file after file.
///
/// The rows render in bands (`Viewport.init(location:map:rows:)`), each a viewport of its own:
/// its spacing is the pixel size at its innermost row, so each band gets the precision, delta
/// type and tables its depth needs.
public struct ExponentialMap: Sendable, Equatable {
    /// The columns: pixels around the circle, 4...`ImageSize.maximumSide`.
    public let width: Int
    /// The rows, outermost first, at least 1 (KF's layout: `files` times `rowsPerFile`).
    public let height: Int
    /// log2 of the ratio of two neighbouring rows' radii: 2 pi / (W ln 2).
    public let log2RowStep: Double
    /// log2 of a pixel's size relative to its row's radius: log2(2 pi / W).
    public let log2AngleStep: Double

    /// log2 of the radius of the map's outer edge: radius 2.
    public static let log2OuterRadius = 1.0
    /// log2 of the radius row 0 would have at `phase` 0: 1 (radius 2) for a strip.
    public let log2Top: Double
    /// Where a pixel samples within its cell, in pixels along the row and the column: 1/2 (its
    /// center) for a strip, 0 for KF's files.
    public let phase: Double
    /// KF's layout: the rows of one file (H); nil for a strip.
    public let rowsPerFile: Int?
    /// KF's layout: the number of files.
    public var files: Int { rowsPerFile.map { height / $0 } ?? 1 }
    /// The most rows a map may have.
    public static let maximumHeight = 100_000_000

    /// The map `width` columns around from radius 2 in to a radius of 2^`log2Radius`:
    /// H = ceil(W ln(2 / radius) / (2 pi)) rows. `radius` is the radius as the user wrote it,
    /// for the errors.
    public init(width: Int, log2Radius: Double, radius: String? = nil) throws(LocationError) {
        let log2RowStep = 2 * Double.pi / (Double(width) * 0.6931471805599453)
        let rows = ((ExponentialMap.log2OuterRadius - log2Radius) / log2RowStep).rounded(.up)
        try ExponentialMap.validate(width: width, log2Radius: log2Radius, rows: rows, radius: radius)
        self.width = width
        self.log2RowStep = log2RowStep
        log2AngleStep = Math.log2(2 * Double.pi / Double(width))
        height = max(1, Int(rows))
        log2Top = ExponentialMap.log2OuterRadius
        phase = 0.5
        rowsPerFile = nil
    }

    /// Kalles Fraktaler's exponential zoom toward a radius of 2^`log2Radius` (the type's
    /// description): files of `width` x H rows, from the first whose frame radius
    /// rho 2^(k - 1) reaches 2 in to the location's (file 1). KF's own files have this
    /// geometry (KF 2.15's `GetPixelCoordinates`: r = 2^(-y/H) of hypot(W, H) / 2 pixels).
    public init(keyframeWidth width: Int, log2Radius: Double, radius: String? = nil) throws(LocationError) {
        let h = max(1, Int((Double(width) * 0.6931471805599453 / (2 * Double.pi)).rounded(.up)))
        // Files k = 1...K, file K the first whose frame radius rho 2^(K - 1) is at least 2.
        let files = (ExponentialMap.log2OuterRadius - log2Radius).rounded(.up) + 1
        try ExponentialMap.validate(width: width, log2Radius: log2Radius, rows: files * Double(h), radius: radius)
        self.width = width
        height = Int(files) * h
        rowsPerFile = h
        log2RowStep = 1 / Double(h)
        log2AngleStep = Math.log2(2 * Double.pi / Double(width))
        phase = 0
        let w = Double(width), hh = Double(h)
        log2Top = log2Radius + (files - 1) + Math.log2((w * w + hh * hh).squareRoot() / hh)
    }

    /// The checks both layouts make before any work: the width, a radius inside 2, and at most
    /// `maximumHeight` rows (`rows`, computed before the conversion to Int).
    static func validate(width: Int, log2Radius: Double, rows: Double, radius: String?) throws(LocationError) {
        let text = radius ?? "2^\(log2Radius)"
        guard width >= 4 && width <= ImageSize.maximumSide else {
            throw .outOfRange(
                field: "width", text: "\(width)", limit: "4...\(ImageSize.maximumSide) for an exponential map")
        }
        guard log2Radius.isFinite, log2Radius < ExponentialMap.log2OuterRadius else {
            throw .outOfRange(field: "radius", text: text, limit: "an exponential map reaches in from radius 2")
        }
        guard rows <= Double(ExponentialMap.maximumHeight) else {
            throw .outOfRange(
                field: "radius", text: text,
                limit: "an exponential map of at most \(ExponentialMap.maximumHeight) rows at width \(width)")
        }
    }

    /// log2 of the radius row `row` samples.
    @inlinable
    public func log2Radius(row: Int) -> Double {
        log2Top - (Double(row) + phase) * log2RowStep
    }

    /// Column `column`'s point `rowsInward` rows outside a band's innermost row, in units of the
    /// pixel size there (2 pi / W of that row's radius), before the location's rotation.
    @inlinable @inline(__always)
    public func offset(column: Int, rowsInward: Int) -> (Double, Double) {
        let scale = Math.exp2(Double(rowsInward) * log2RowStep) * (Double(width) / (2 * Double.pi))
        let angle = 2 * Double.pi * (Double(column) + phase) / Double(width)
        return (scale * Math.cos(angle), scale * Math.sin(angle))
    }

    /// The rows of each band, outermost first: one octave of radius (so that each band's tables
    /// serve radii within a factor of 2), or more where an octave holds fewer than
    /// `minimumPixels` (a narrow map: fewer renders), and at most `maximumPixels` pixels.
    public func bands(minimumPixels: Int = 1 << 15, maximumPixels: Int = 1 << 22) -> [Range<Int>] {
        let octave = max(1, Int((1 / log2RowStep).rounded(.up)))
        let rows = max(1, min(max(octave, minimumPixels / width), maximumPixels / width))
        return stride(from: 0, to: height, by: rows).map { $0..<min(height, $0 + rows) }
    }

    /// 2^`log2` in MPFR at `precision`: 2^floor(log2) times a Double in [1, 2), exact.
    static func powerOfTwo(_ log2: Double, precision: Precision) -> BigFloat {
        let whole = log2.rounded(.down)
        return BigFloat(Math.exp2(log2 - whole), precision: precision).timesPowerOfTwo(Int(whole))
    }
}
