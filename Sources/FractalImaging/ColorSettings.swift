import Foundation
import FractalEngine

/// How iteration data become colours (Documentation/Coloring.md).
///
/// The phase of a pixel is value' x density / 32 + offset, where value' is the pixel's count
/// (smooth or integer) transformed by `scale`. The default scale, `.automatic`, adapts to the
/// view: `resolved(for:)` turns it into explicit settings computed from the field
/// (ColorSettings+Automatic.swift), which `Colorizer.image` does before colouring.
public struct ColorSettings: Sendable, Equatable {
    /// The named palette escaped pixels are coloured with (unless `gradient` is set).
    public var palette: Palette
    /// Palette cycles per 32 units of the scaled value (linear: per 32 iterations; histogram:
    /// 32 units span the view, so density is the number of cycles across it). Unused while
    /// `scale` is `.automatic`.
    public var density: Double
    /// Added to the phase, in cycles. Unused while `scale` is `.automatic`.
    public var offset: Double
    /// Colour by the smooth count nu (true) or by the integer count n2 (false).
    public var smooth: Bool
    /// How the count becomes the value the phase is proportional to.
    public var scale: Scale
    /// The histogram scale's table: counts at equal shares of the view's escaped pixels,
    /// nondecreasing (nil: taken from the field when the image is coloured).
    public var quantiles: [Double]?
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
        /// The direction the light comes from, in degrees counter-clockwise from east.
        public var angle: Double
        /// The light's height above the plane, > 0: the higher the light, the weaker the shading.
        public var height: Double
        /// How much of the colour the light controls, in [0, 1] (0: no shading).
        public var strength: Double
        /// A light at `angle` degrees, `height` above the plane and `strength` in [0, 1].
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

    /// How a pixel's count becomes the value the phase is proportional to. The raw values are the
    /// names in JSON (`auto`, `linear`, `log`, `histogram`).
    public enum Scale: String, Sendable, Codable, CaseIterable {
        /// Adapts to the view: resolved from the field before colouring (the default).
        case automatic = "auto"
        /// value' = value.
        case linear
        /// value' = 32 ln(1 + value): bands stay visible where counts run into the millions.
        case log
        /// value' = 32 x the share of the view's escaped pixels with a lower count (histogram
        /// colouring), piecewise linear between `quantiles`.
        case histogram
    }

    /// Settings with the given fields. With neither density, offset nor scale given the scale is
    /// `.automatic`; with density or offset given and no scale it is `.linear` (the meaning
    /// they always had), density 1 and offset 0 where not given.
    public init(
        palette: Palette = .cosine, density: Double? = nil, offset: Double? = nil, smooth: Bool = true,
        scale: Scale? = nil,
        interior: RGB = .black
    ) {
        self.palette = palette
        self.density = density ?? 1
        self.offset = offset ?? 0
        self.smooth = smooth
        self.scale = scale ?? (density == nil && offset == nil ? .automatic : .linear)
        self.interior = interior
    }
}

/// Colour settings that are not valid (from a location file's `color`).
public enum ColorError: Error, Equatable, CustomStringConvertible {
    /// `field` (a dotted path such as `color.interior`) and what is wrong with it.
    case invalid(field: String, reason: String)

    /// The field and the reason, as `field: reason`.
    public var description: String {
        switch self {
        case .invalid(let field, let reason): "\(field): \(reason)"
        }
    }

    /// The dotted name of `key` under `path` (`color.interior`, `color.gradient.stops.0.color`).
    static func field(_ path: [CodingKey], _ key: CodingKey? = nil) -> String {
        (path + (key.map { [$0] } ?? [])).map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }

    /// A number as a person wrote it: 300 rather than 300.0.
    static func text(_ x: Double) -> String {
        x == x.rounded() && Swift.abs(x) < 1e15 ? String(Int(x)) : "\(x)"
    }
}

// MARK: - JSON

/// Every field is optional, with the defaults of `init`; values are checked, and a bad one is
/// a `ColorError` naming its field.
extension ColorSettings: Codable {
    enum CodingKeys: String, CodingKey {
        case palette, density, offset, smooth, scale, quantiles, interior, gradient, boundaryWidth, slope, trap
    }

    /// Decodes settings from JSON (a location file's `color`), missing fields taking `init`'s
    /// defaults.
    ///
    /// Throws `ColorError` naming the field for a value out of range (a bad `quantiles` table
    /// included), an unknown palette or scale, density or offset with scale `auto`, quantiles
    /// without scale `histogram`, or a trap whose point is not finite; and the decoder's errors
    /// for values of the wrong type.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func name(_ key: CodingKeys) -> String { ColorError.field(decoder.codingPath, key) }
        func number(_ key: CodingKeys, _ ok: (Double) -> Bool, _ rule: String) throws -> Double? {
            guard let x = try c.decodeIfPresent(Double.self, forKey: key) else { return nil }
            guard x.isFinite, ok(x) else {
                throw ColorError.invalid(field: name(key), reason: "\(ColorError.text(x)) is not \(rule)")
            }
            return x
        }
        var palette = Palette.cosine
        if let text = try c.decodeIfPresent(String.self, forKey: .palette) {
            guard let p = Choice.parse(text, as: Palette.self, ignoringCase: true) else {
                throw ColorError.invalid(field: name(.palette), reason: Choice.refusal(text, Palette.self))
            }
            palette = p
        }
        var scale: Scale?
        if let text = try c.decodeIfPresent(String.self, forKey: .scale) {
            guard let s = Choice.parse(text, as: Scale.self, ignoringCase: true) else {
                throw ColorError.invalid(field: name(.scale), reason: Choice.refusal(text, Scale.self))
            }
            scale = s
        }
        let density = try number(.density, { $0 > 0 }, "a finite number > 0")
        let offset = try number(.offset, { _ in true }, "a finite number")
        if scale == .automatic, density != nil || offset != nil {
            throw ColorError.invalid(
                field: name(density != nil ? .density : .offset),
                reason: "has no meaning with scale 'auto' (give scale linear, log or histogram)")
        }
        self.init(
            palette: palette, density: density, offset: offset,
            smooth: try c.decodeIfPresent(Bool.self, forKey: .smooth) ?? true,
            scale: scale, interior: try c.decodeIfPresent(RGB.self, forKey: .interior) ?? .black)
        if let q = try c.decodeIfPresent([Double].self, forKey: .quantiles) {
            guard self.scale == .histogram else {
                throw ColorError.invalid(field: name(.quantiles), reason: "only with scale 'histogram'")
            }
            try ColorSettings.checkQuantiles(q, field: name(.quantiles))
            quantiles = q
        }
        gradient = try c.decodeIfPresent(Gradient.self, forKey: .gradient)
        boundaryWidth = try number(.boundaryWidth, { $0 > 0 }, "a width in pixels > 0")
        slope = try c.decodeIfPresent(SlopeLight.self, forKey: .slope)
        trap = try c.decodeIfPresent(OrbitTrap.self, forKey: .trap)
        if let trap {
            let (re, im): (Double, Double) =
                switch trap {
                case .point(let re, let im), .cross(let re, let im): (re, im)
                }
            guard re.isFinite, im.isFinite else {
                throw ColorError.invalid(field: name(.trap), reason: "the trap's re and im must be finite")
            }
        }
    }

    /// Encodes every field that is set; density and offset only when `scale` is not `.automatic`.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(palette, forKey: .palette)
        if scale != .automatic {
            try c.encode(density, forKey: .density)
            try c.encode(offset, forKey: .offset)
        }
        try c.encode(smooth, forKey: .smooth)
        try c.encode(scale, forKey: .scale)
        try c.encodeIfPresent(quantiles, forKey: .quantiles)
        try c.encode(interior, forKey: .interior)
        try c.encodeIfPresent(gradient, forKey: .gradient)
        try c.encodeIfPresent(boundaryWidth, forKey: .boundaryWidth)
        try c.encodeIfPresent(slope, forKey: .slope)
        try c.encodeIfPresent(trap, forKey: .trap)
    }

    /// A histogram table: 2...1025 finite counts, nondecreasing.
    static func checkQuantiles(_ q: [Double], field: String) throws(ColorError) {
        guard (2...1025).contains(q.count) else {
            throw .invalid(field: field, reason: "needs 2 to 1025 counts, has \(q.count)")
        }
        guard q.allSatisfy(\.isFinite) else { throw .invalid(field: field, reason: "counts must be finite") }
        guard zip(q, q.dropFirst()).allSatisfy({ $0 <= $1 }) else {
            throw .invalid(field: field, reason: "counts must not decrease")
        }
    }
}

extension ColorSettings.SlopeLight {
    enum CodingKeys: String, CodingKey { case angle, height, strength }

    /// Missing fields take the defaults; height must be > 0 and strength within 0...1.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        for (key, path) in [(CodingKeys.angle, \Self.angle), (.height, \.height), (.strength, \.strength)] {
            guard let x = try c.decodeIfPresent(Double.self, forKey: key) else { continue }
            let ok = x.isFinite && (key != .height || x > 0) && (key != .strength || (0...1).contains(x))
            guard ok else {
                let rule =
                    key == .height
                    ? "a finite number > 0" : key == .strength ? "within 0...1" : "a finite angle in degrees"
                throw ColorError.invalid(
                    field: ColorError.field(decoder.codingPath, key), reason: "\(ColorError.text(x)) is not \(rule)")
            }
            self[keyPath: path] = x
        }
    }
}

/// An RGB colour in JSON: [r, g, b], each within 0...1.
extension RGB: Codable {
    /// Decodes `[r, g, b]`; throws `ColorError` unless it is three finite components within 0...1.
    public init(from decoder: Decoder) throws {
        var c = try decoder.unkeyedContainer()
        var v: [Double] = []
        while !c.isAtEnd && v.count < 4 { v.append(try c.decode(Double.self)) }
        guard v.count == 3, v.allSatisfy({ $0.isFinite && (0...1).contains($0) }) else {
            throw ColorError.invalid(
                field: ColorError.field(decoder.codingPath),
                reason:
                    "[\(v.map(ColorError.text).joined(separator: ", "))\(c.isAtEnd ? "" : ", ...")] is not three components within 0...1"
            )
        }
        self.init(v[0], v[1], v[2])
    }

    /// Encodes the colour as `[r, g, b]`.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.unkeyedContainer()
        try c.encode(r)
        try c.encode(g)
        try c.encode(b)
    }
}

extension ColorError: LocalizedError {
    /// The one-line message (`description`), so that `localizedDescription` reads it too.
    public var errorDescription: String? { description }
}
