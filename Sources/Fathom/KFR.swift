import Foundation

/// Kalles Fraktaler location files (.kfr): text lines `Key: Value`. Fathom reads Re, Im
/// (the center, decimal strings of any length), Zoom (zoom 1 shows -2..2 on the short side, so
/// radius = 2 / Zoom: Documentation/Design.md section 2) and Iterations; FractalType 0 with Power p is
/// z^p + c. Every other key is kept in `LocationFile.kfrExtra`, in file order, and written
/// back on export, never dropped (Documentation/Conventions.md).
public enum KFR {
    /// The keys Fathom reads. The rotation is `RotateAngle` (Kalles Fraktaler 2.15) or
    /// `Rotate` (earlier versions), in degrees counter-clockwise; a view stretched by
    /// `StretchAmount` other than 0 is refused (Fathom has no stretched views).
    public static let knownKeys: Set<String> = [
        "Re", "Im", "Zoom", "Iterations", "FractalType", "Power", "Rotate", "RotateAngle",
    ]

    /// Whether `data` starts like a KFR file (a `Re: ` line first, after blank lines).
    static func looksLikeKFR(_ data: Data) -> Bool {
        let head = String(decoding: data.prefix(64), as: UTF8.self).drop { $0.isWhitespace }
        return head.hasPrefix("Re:")
    }

    /// The location in a KFR file's text.
    public static func parse(_ text: String, path: String) throws(FileError) -> LocationFile {
        var values: [String: String] = [:]
        var extra: [[String]] = []
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw[...]
            if line.allSatisfy(\.isWhitespace) { continue }
            guard let colon = line.firstIndex(of: ":") else {
                throw .malformed(path: path, reason: "line '\(line.prefix(40))' is not 'Key: Value'")
            }
            let key = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard !key.isEmpty else { throw .malformed(path: path, reason: "a line without a key") }
            guard values[key] == nil && !extra.contains(where: { $0[0] == key }) else {
                throw .malformed(path: path, reason: "key '\(key)' appears twice")
            }
            if knownKeys.contains(key) { values[key] = value } else { extra.append([key, value]) }
        }
        for key in ["Re", "Im", "Zoom", "Iterations"] where values[key] == nil {
            throw .malformed(path: path, reason: "missing key '\(key)'")
        }
        guard let iterations = Int(values["Iterations"]!) else {
            throw .malformed(path: path, reason: "Iterations '\(values["Iterations"]!)' is not a whole number")
        }
        if let type = values["FractalType"], type != "0" {
            throw .malformed(
                path: path,
                reason:
                    "FractalType \(type) is not the Mandelbrot family (type 0), the only one Fathom shares with Kalles Fraktaler"
            )
        }
        var power = 2
        if let p = values["Power"] {
            guard let v = Int(p) else { throw .malformed(path: path, reason: "Power '\(p)' is not a whole number") }
            power = v
        }
        let radius: String
        do { radius = try LocationFile.radius(fromZoom: values["Zoom"]!) } catch {
            throw .malformed(path: path, reason: "\(error)")
        }
        var rotation = 0.0
        for key in ["Rotate", "RotateAngle"] {
            guard let text = values[key] else { continue }
            guard let degrees = Double(text), degrees.isFinite else {
                throw .malformed(path: path, reason: "\(key) '\(text.prefix(40))' is not an angle in degrees")
            }
            if rotation != 0 && degrees != rotation {
                throw .malformed(
                    path: path, reason: "Rotate and RotateAngle disagree (\(rotation) and \(degrees) degrees)")
            }
            rotation = degrees
        }
        if let stretch = extra.first(where: { $0[0] == "StretchAmount" })?[1], let amount = Double(stretch), amount != 0
        {
            throw .malformed(path: path, reason: "StretchAmount \(stretch): Fathom renders no stretched views")
        }
        var file = LocationFile(
            location: Location(
                family: power == 2 ? .mandelbrot : .multibrot(power: power),
                centerRe: values["Re"]!, centerIm: values["Im"]!, radius: radius,
                rotation: rotation, maxIterations: iterations))
        file.kfrExtra = extra.isEmpty ? nil : extra
        return file
    }

    /// `file` as KFR text: Re, Im, Zoom, Iterations, then FractalType and Power for a
    /// Multibrot, RotateAngle for a rotated view, then the kept keys. Throws for families Kalles Fraktaler does not share.
    public static func text(of file: LocationFile) throws -> String {
        let location = try file.location()
        var lines = [
            "Re: \(location.centerRe)", "Im: \(location.centerIm)",
            "Zoom: \(try LocationFile.zoom(fromRadius: location.radius))", "Iterations: \(location.maxIterations)",
        ]
        switch location.family {
        case .mandelbrot: break
        case .multibrot(let p): lines += ["FractalType: 0", "Power: \(p)"]
        case .julia, .newton: throw FathomError.notInKFR(location.family.name)
        }
        if location.rotation != 0 { lines.append("RotateAngle: \(location.rotation)") }
        for pair in file.kfrExtra ?? [] where pair.count == 2 && !knownKeys.contains(pair[0]) {
            lines.append("\(pair[0]): \(pair[1])")
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}

extension LocationFile {
    /// radius = 2 / zoom, to a few digits fewer than the zoom was given with (at least 17):
    /// what `zoom(fromRadius:)` writes reads back to the radius it came from.
    public static func radius(fromZoom text: String) throws(LocationError) -> String {
        try twoOver(text, field: "zoom") { max(17, $0 - 5) }
    }

    /// zoom = 2 / radius, to 10 digits more than the radius has (at least 20).
    public static func zoom(fromRadius text: String) throws(LocationError) -> String {
        try twoOver(text, field: "radius") { max(20, $0 + 10) }.replacingOccurrences(of: "e", with: "E")
    }

    /// 2 / `text` in decimal, to `digits(digits of text)` significant digits.
    static func twoOver(_ text: String, field: String, digits: (Int) -> Int) throws(LocationError) -> String {
        // The precision follows the digits: bounded first, as every decimal number is.
        guard text.count <= Location.maximumCharacters else {
            throw .tooLong(field: field, characters: text.count)
        }
        let given = text.filter(\.isNumber).count
        let precision = Precision.forDecimalDigits(max(40, given + 20))
        let value: BigFloat
        do { value = try BigFloat(parsing: text, precision: precision) } catch {
            throw .badNumber(field: field, text: text)
        }
        guard value.signum > 0 && value.isFinite else { throw .notPositive(field: field, text: text) }
        return (BigFloat(2, precision: precision) / value).decimalString(significantDigits: digits(given))
    }
}
