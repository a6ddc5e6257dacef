import FractalEngine
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
    /// Boundary shading by the distance estimate: pixels within this many pixel spacings of
    /// the set are darkened, by sqrt(distance / width) (nil: off).
    public var boundaryWidth: Double?
    /// Slope lighting from the derivative's direction (nil: off).
    public var slope: SlopeLight?
    /// Colour by the orbit's closest approach to this trap instead of the escape count.
    public var trap: OrbitTrap?

    /// Light from `angle` degrees (counter-clockwise from east) at `height` above the plane;
    /// `strength` in [0, 1] is how much of the colour the light controls.
    public struct SlopeLight: Sendable, Equatable, Codable {
        public var angle: Double
        public var height: Double
        public var strength: Double
        public init(angle: Double = 45, height: Double = 1.5, strength: Double = 0.75) {
            self.angle = angle
            self.height = height
            self.strength = strength
        }
    }

    /// The per-pixel extras these settings need from the renderer.
    public var extrasRequest: ExtrasRequest {
        ExtrasRequest(derivative: boundaryWidth != nil || slope != nil, trap: trap)
    }

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
