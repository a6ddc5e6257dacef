import Foundation

/// A user palette: colour stops at positions in [0, 1), interpolated linearly in RGB and
/// cyclic (after the last stop it runs back to the first at 1). Read from a gradient file
/// (Documentation/Coloring.md) and stored whole in the location file, so a render is
/// reproducible from its location alone.
public struct Gradient: Sendable, Equatable, Codable {
    /// A colour at a position of the cycle.
    public struct Stop: Sendable, Equatable, Codable {
        /// Where the stop lies in the cycle, in [0, 1).
        public var position: Double
        /// The colour at `position`.
        public var color: RGB
        /// A stop of `color` at `position` (checked by `Gradient.init(stops:)`).
        public init(position: Double, color: RGB) {
            self.position = position
            self.color = color
        }
    }

    /// Sorted by position, at least one, positions in [0, 1).
    public let stops: [Stop]

    /// A gradient of `stops`, sorted by position. Throws `GradientError` when `stops` is empty, a
    /// position lies outside [0, 1) or two stops share a position.
    public init(stops: [Stop]) throws(GradientError) {
        guard !stops.isEmpty else { throw .empty }
        guard stops.allSatisfy({ $0.position >= 0 && $0.position < 1 }) else { throw .positionOutOfRange }
        let sorted = stops.sorted { $0.position < $1.position }
        guard zip(sorted, sorted.dropFirst()).allSatisfy({ $0.position < $1.position }) else {
            throw .duplicatePosition
        }
        self.stops = sorted
    }

    /// Decodes `{"stops": [{"position": p, "color": [r, g, b]}, ...]}` and checks the stops as
    /// `init(stops:)` does, throwing its `GradientError`.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(stops: c.decode([Stop].self, forKey: .stops))
    }

    /// The colour at phase t (one cycle per unit).
    public func color(at t: Double) -> RGB {
        let f = t - t.rounded(.down)
        guard stops.count > 1 else { return stops[0].color }
        // The stop at or before f (cyclically) and the one after it.
        var i = stops.count - 1
        for (k, s) in stops.enumerated() where s.position <= f { i = k }
        let a = stops[i], b = stops[(i + 1) % stops.count]
        var span = b.position - a.position
        var offset = f - a.position
        if span <= 0 { span += 1 }
        if offset < 0 { offset += 1 }
        let w = offset / span
        return RGB(
            a.color.r + (b.color.r - a.color.r) * w, a.color.g + (b.color.g - a.color.g) * w,
            a.color.b + (b.color.b - a.color.b) * w)
    }

    /// Parses a gradient file: one stop a line, `RRGGBB` or `#RRGGBB` (stops then spread
    /// evenly over the cycle) or `POSITION RRGGBB` with positions in [0, 1); `#` starts a
    /// comment only when followed by a space or at the end of a line; blank lines are skipped.
    public static func parse(_ text: String) throws(GradientError) -> Gradient {
        var stops: [(Double?, RGB)] = []
        for (n, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            var line = String(raw)
            if let r = line.range(of: "# ") { line = String(line[..<r.lowerBound]) }
            if line.hasSuffix("#") { line.removeLast() }
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," })
            if fields.isEmpty { continue }
            guard fields.count <= 2 else { throw .badLine(n + 1, String(raw)) }
            guard let color = hex(String(fields.last!)) else { throw .badLine(n + 1, String(raw)) }
            var position: Double?
            if fields.count == 2 {
                guard let p = Double(fields[0]), p >= 0, p < 1 else { throw .badLine(n + 1, String(raw)) }
                position = p
            }
            stops.append((position, color))
        }
        guard !stops.isEmpty else { throw .empty }
        let positioned = stops.filter { $0.0 != nil }.count
        guard positioned == 0 || positioned == stops.count else { throw .mixedPositions }
        return try Gradient(
            stops: stops.enumerated().map { k, s in
                Stop(position: s.0 ?? Double(k) / Double(stops.count), color: s.1)
            })
    }

    static func hex(_ text: String) -> RGB? {
        let digits = text.hasPrefix("#") ? String(text.dropFirst()) : text
        guard digits.count == 6, let v = UInt32(digits, radix: 16) else { return nil }
        return RGB(Double(v >> 16) / 255, Double((v >> 8) & 255) / 255, Double(v & 255) / 255)
    }
}

/// Why a gradient could not be read.
public enum GradientError: Error, Equatable, CustomStringConvertible {
    /// There are no colour stops.
    case empty
    /// A stop's position lies outside [0, 1).
    case positionOutOfRange
    /// Two stops have the same position.
    case duplicatePosition
    /// A gradient file gives positions on some lines but not on all.
    case mixedPositions
    /// A gradient file's line (its number, from 1, and its text) is not `RRGGBB`, `#RRGGBB` or
    /// `POSITION RRGGBB`.
    case badLine(Int, String)

    /// A one-line message, prefixed `gradient:`.
    public var description: String {
        switch self {
        case .empty: "gradient: no colour stops"
        case .positionOutOfRange: "gradient: stop positions must be in [0, 1)"
        case .duplicatePosition: "gradient: two stops at the same position"
        case .mixedPositions: "gradient: give a position on every line or on none"
        case .badLine(let n, let text): "gradient: line \(n) '\(text.prefix(40))' is not 'RRGGBB' or 'POSITION RRGGBB'"
        }
    }
}

extension GradientError: LocalizedError {
    /// The one-line message (`description`), so that `localizedDescription` reads it too.
    public var errorDescription: String? { description }
}
