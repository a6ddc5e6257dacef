import FractalNumerics

/// An RGB colour with components in [0, 1].
public struct RGB: Sendable, Equatable, Hashable {
    /// The red component.
    public var r: Double
    /// The green component.
    public var g: Double
    /// The blue component.
    public var b: Double

    /// The colour with components `r`, `g` and `b`.
    public init(_ r: Double, _ g: Double, _ b: Double) {
        self.r = r
        self.g = g
        self.b = b
    }

    /// Black, (0, 0, 0).
    public static let black = RGB(0, 0, 0)
    /// White, (1, 1, 1).
    public static let white = RGB(1, 1, 1)

    /// Hue in turns (any real; taken mod 1), saturation and value in [0, 1].
    public static func hsv(hue: Double, saturation s: Double, value v: Double) -> RGB {
        // A hue that is not finite (a phase that overflowed, a NaN setting) reads as 0.
        let h = hue.isFinite ? (hue - hue.rounded(.down)) * 6 : 0
        let sector = min(5, max(0, Int(h)))
        let f = h - Double(sector)
        let p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f))
        switch sector {
        case 0: return RGB(v, t, p)
        case 1: return RGB(q, v, p)
        case 2: return RGB(p, v, t)
        case 3: return RGB(p, q, v)
        case 4: return RGB(t, p, v)
        default: return RGB(v, p, q)
        }
    }

    /// 8-bit components, rounded to nearest.
    public var bytes: (UInt8, UInt8, UInt8) {
        func q(_ x: Double) -> UInt8 { UInt8((min(1, max(0, x)) * 255).rounded()) }
        return (q(r), q(g), q(b))
    }

    /// 16-bit components, rounded to nearest.
    public var words: (UInt16, UInt16, UInt16) {
        func q(_ x: Double) -> UInt16 { UInt16((min(1, max(0, x)) * 65535).rounded()) }
        return (q(r), q(g), q(b))
    }
}

/// The named palettes. Each maps a phase t (any real; one cycle per unit) to a colour.
///
/// Hot, Cold and Gray are ramps, run up and back down within a cycle so that cycling has no
/// seam; Chromatic and Cosine are periodic. Hot, Cold, Gray and Chromatic are the four
/// palettes of the 2008 xFractal app that seeded Fathom; Cosine is
/// 0.5 + 0.5 cos(2 pi t + k 2 pi / 3), k = 0, 1, 2 (the Metal tutorial's palette).
public enum Palette: String, Sendable, CaseIterable, Codable {
    /// Black, red, yellow, white, and back within each cycle.
    case hot
    /// Black, blue, cyan, white, and back within each cycle.
    case cold
    /// Black to white, and back within each cycle.
    case gray
    /// The hue circle at full saturation and value, once per cycle.
    case chromatic
    /// 0.5 + 0.5 cos(2 pi t + k 2 pi / 3) for red, green and blue (k = 0, 1, 2); the default.
    case cosine

    /// What each palette looks like, for `fathom palettes` and help.
    public var summary: String {
        switch self {
        case .hot: "black - red - yellow - white, and back"
        case .cold: "black - blue - cyan - white, and back"
        case .gray: "black - white, and back"
        case .chromatic: "the hue circle at full saturation"
        case .cosine: "0.5 + 0.5 cos(2 pi t + k 2 pi/3) for red, green, blue (k = 0, 1, 2)"
        }
    }

    /// The colour at phase `t`.
    public func color(at t: Double) -> RGB {
        let f = t - t.rounded(.down)  // [0, 1)
        let ramp = 1 - Swift.abs(2 * f - 1)  // 0 -> 1 -> 0 over a cycle
        func clamp(_ x: Double) -> Double { min(1, max(0, x)) }
        switch self {
        case .hot: return RGB(clamp(3 * ramp), clamp(3 * ramp - 1), clamp(3 * ramp - 2))
        case .cold: return RGB(clamp(3 * ramp - 2), clamp(3 * ramp - 1), clamp(3 * ramp))
        case .gray: return RGB(ramp, ramp, ramp)
        case .chromatic: return .hsv(hue: f, saturation: 1, value: 1)
        case .cosine:
            let a = 2 * Double.pi * f
            return RGB(
                0.5 + 0.5 * Math.cos(a), 0.5 + 0.5 * Math.cos(a + 2 * .pi / 3), 0.5 + 0.5 * Math.cos(a + 4 * .pi / 3))
        }
    }
}
