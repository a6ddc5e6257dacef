/// How iteration data become colours (Documentation/Coloring.md).
public struct ColorSettings: Sendable, Equatable, Codable {
    public var palette: Palette
    /// Palette cycles per 32 iterations.
    public var density: Double
    /// Added to the phase, in cycles.
    public var offset: Double
    /// Colour by the smooth count nu (true) or by the integer count n2 (false).
    public var smooth: Bool
    /// `.log` colours by ln(1 + value): bands stay visible at deep zooms with huge counts.
    public var scale: Scale
    /// The colour of pixels that did not escape (or, for Newton, did not converge).
    public var interior: RGB
    /// A user gradient (from a gradient file), used instead of `palette` when set.
    public var gradient: Gradient?

    public enum Scale: String, Sendable, Codable, CaseIterable {
        case linear
        case log
    }

    public init(palette: Palette = .cosine, density: Double = 1, offset: Double = 0, smooth: Bool = true, scale: Scale = .linear, interior: RGB = .black) {
        self.palette = palette
        self.density = density
        self.offset = offset
        self.smooth = smooth
        self.scale = scale
        self.interior = interior
    }
}

extension RGB: Codable {
    public init(from decoder: Decoder) throws {
        var c = try decoder.unkeyedContainer()
        self.init(try c.decode(Double.self), try c.decode(Double.self), try c.decode(Double.self))
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.unkeyedContainer()
        try c.encode(r)
        try c.encode(g)
        try c.encode(b)
    }
}
