import Foundation

/// A location file: the location, and optionally the image size, colouring and engine settings
/// (Documentation/Conventions.md). It reads the oracle and ../shared/locations JSON as well:
/// `{"name", "family", "power", "juliaC": [re, im], "newton", "center": [re, im], "radius",
///   "rotation", "maxIterations", "width", "height", "color": {...}, "guardBits"}`.
public struct LocationFile: Sendable, Equatable, Codable {
    /// A name for the location (nil for none).
    public var name: String?
    /// The family: `mandelbrot`, `multibrot`, `julia` or `newton` (in a file, any case).
    public var family: Family.Kind
    /// The power p, 2...16: for `multibrot` (nil: 3), or for `mandelbrot`, where a power other
    /// than 2 makes it a Multibrot (nil: 2). Julia and Newton ignore it.
    public var power: Int?
    /// Julia's parameter c as [re, im] decimal strings; required for `julia`.
    public var juliaC: [String]?
    /// Newton's polynomial in z, e.g. `z^3-2z+2` (nil: `z^3-1`).
    public var newton: String?
    /// The view's center as [re, im] decimal strings of any length.
    public var center: [String]
    /// Half of the shorter image side in complex units, a decimal string with any exponent
    /// (`"4e-1122"`).
    public var radius: String
    /// Counter-clockwise rotation about the center, in degrees (nil: 0).
    public var rotation: Double?
    /// The iteration limit, 1...2,000,000,000.
    public var maxIterations: Int
    /// The image width in pixels (nil: the caller's; `fathom render` takes 1280).
    public var width: Int?
    /// The image height in pixels (nil: the caller's; `fathom render` takes 720).
    public var height: Int?
    /// The colouring (nil: the defaults, `ColorSettings()`).
    public var color: ColorSettings?
    /// k x k samples a pixel (1...4; nil: 1), averaged in colour.
    public var supersample: Int?
    /// Bits the arithmetic must carry below the pixel spacing before a cheaper type is used
    /// (nil: `RenderSettings.defaultGuardBits`). `fathom render` sets `RenderSettings.guardBits`
    /// from it; `ImageRender` takes the guard bits of the settings it is given.
    public var guardBits: Int?
    /// How to render: arithmetic and perturbation settings (nil fields: the defaults).
    public var engine: EngineSettings?
    /// Kalles Fraktaler keys Fathom does not use, in file order ([key, value] pairs), kept
    /// from an imported .kfr and written back when the location is exported as .kfr.
    public var kfrExtra: [[String]]?
    /// Set by Fathom when it renders: how it rendered (path, bits, threads).
    public var render: RenderInfo?

    /// What the renderer did, stored with the image.
    public struct RenderInfo: Sendable, Equatable, Codable {
        /// The arithmetic path the render took (an `ArithmeticPath`'s raw value).
        public var path: String
        /// Bits the view needed: log2(coordinate scale / spacing) + guard bits.
        public var requiredBits: Int
        /// The version of Fathom that rendered (`FathomInfo.version`).
        public var fathomVersion: String
        /// Perturbation only: delta type, glitch mode, reference precision and points.
        public var deltaType: String?
        /// The glitch mode (a `GlitchMode`'s raw value); perturbation only.
        public var glitchMode: String?
        /// The reference orbits' precision in bits; perturbation only.
        public var precisionBits: Int?
        /// The reference points as [re, im] decimal strings, the primary one first; perturbation only.
        public var references: [[String]]?

        /// What the renderer did, field by field; the perturbation fields default to nil.
        public init(
            path: String, requiredBits: Int, fathomVersion: String, deltaType: String? = nil, glitchMode: String? = nil,
            precisionBits: Int? = nil, references: [[String]]? = nil
        ) {
            self.path = path
            self.requiredBits = requiredBits
            self.fathomVersion = fathomVersion
            self.deltaType = deltaType
            self.glitchMode = glitchMode
            self.precisionBits = precisionBits
            self.references = references
        }
    }

    /// The file of `location` (its rotation stored only when not 0), with the image size and
    /// colouring given (nil: none stored).
    public init(location: Location, width: Int? = nil, height: Int? = nil, color: ColorSettings? = nil) {
        name = location.name
        family = location.family.kind
        center = [location.centerRe, location.centerIm]
        radius = location.radius
        rotation = location.rotation == 0 ? nil : location.rotation
        maxIterations = location.maxIterations
        self.width = width
        self.height = height
        self.color = color
        switch location.family {
        case .mandelbrot: power = 2
        case .multibrot(let p): power = p
        case .julia(let re, let im):
            power = 2
            juliaC = [re, im]
        case .newton(let poly): newton = poly.text
        }
    }

    /// The engine's location, checked field by field.
    public func location() throws(LocationError) -> Location {
        guard center.count == 2 else { throw .missingField("center (two decimal strings)") }
        var fam: Family
        switch family {
        case .mandelbrot:
            fam = (power ?? 2) == 2 ? .mandelbrot : .multibrot(power: power!)
        case .multibrot:
            fam = .multibrot(power: power ?? 3)
        case .julia:
            guard let c = juliaC, c.count == 2 else { throw .missingField("juliaC (two decimal strings)") }
            fam = .julia(re: c[0], im: c[1])
        case .newton:
            let text = newton ?? "z^3-1"
            guard let poly = NewtonPolynomial(text) else { throw .badPolynomial(text) }
            fam = .newton(poly)
        }
        // Published files sometimes pad numbers with spaces (shared/locations/glitch_test_5):
        // surrounding whitespace is dropped; anything else must be a decimal number.
        func trim(_ s: String) -> String {
            String(s.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
        }
        if case .julia(let re, let im) = fam { fam = .julia(re: trim(re), im: trim(im)) }
        let loc = Location(
            name: name, family: fam, centerRe: trim(center[0]), centerIm: trim(center[1]), radius: trim(radius),
            rotation: rotation ?? 0, maxIterations: maxIterations)
        try loc.validate()
        return loc
    }

    /// Reads a location: Fathom JSON (also the oracle's and shared/locations'), a Kalles
    /// Fraktaler .kfr file, or the location stored in a PNG that Fathom wrote.
    public static func read(path: String) throws(FileError) -> LocationFile {
        try decode(try FileError.readData(path), path: path)
    }

    /// `read(path:)` for a `file:` URL (`FileError.unreadable` for any other).
    public static func read(url: URL) throws(FileError) -> LocationFile {
        try read(path: try FileError.path(of: url))
    }

    /// The size a render of this file takes where it gives none: 1280 x 720.
    public static let defaultSize = (width: 1280, height: 720)

    /// The render settings this file asks for: its size (`defaultSize` where it gives none),
    /// its guard bits and its engine settings, laid over `base`'s others (threads, backend,
    /// tile size). Throws `LocationError.badSize`, `RenderError.invalidSetting` for guard bits
    /// out of range, and `FathomError` for an engine setting the engine does not take.
    public func renderSettings(over base: RenderSettings? = nil) throws -> RenderSettings {
        var settings = base ?? RenderSettings(width: Self.defaultSize.width, height: Self.defaultSize.height)
        settings.width = width ?? Self.defaultSize.width
        settings.height = height ?? Self.defaultSize.height
        try ImageSize.validate(width: settings.width, height: settings.height)
        if let guardBits { settings.guardBits = guardBits }
        try engine?.apply(to: &settings)
        try settings.validate()
        return settings
    }

    /// The location in a file's bytes (`read(path:)` without the reading): PNG by its
    /// signature, KFR by `path`'s extension or a leading `Re:` line, else JSON. `path` names
    /// the file in errors.
    public static func decode(_ data: Data, path: String) throws(FileError) -> LocationFile {
        let bytes = [UInt8](data.prefix(8))
        if bytes == [137, 80, 78, 71, 13, 10, 26, 10] {
            let chunks: [(String, String)]
            do { chunks = try PNGReader.textChunks(bytes: [UInt8](data), path: path) } catch {
                throw .malformed(path: path, reason: "unreadable PNG chunks")
            }
            guard let json = chunks.first(where: { $0.0 == FathomInfo.locationKey })?.1 else {
                throw .malformed(
                    path: path, reason: "a PNG without Fathom's location chunk '\(FathomInfo.locationKey)'")
            }
            return try decodeJSON(Data(json.utf8), path: path)
        }
        if path.lowercased().hasSuffix(".kfr") || KFR.looksLikeKFR(data) {
            return try KFR.parse(String(decoding: data, as: UTF8.self), path: path)
        }
        return try decodeJSON(data, path: path)
    }

    /// Decodes Fathom JSON; a problem is `FileError.malformed` naming `path` and the field.
    public static func decodeJSON(_ data: Data, path: String) throws(FileError) -> LocationFile {
        do {
            return try JSONDecoder().decode(LocationFile.self, from: data)
        } catch {
            throw .malformed(path: path, reason: FileError.describe(error, json: data))
        }
    }

    /// The fields a location file holds as whole numbers.
    static let integerFields = ["maxIterations", "width", "height", "power", "supersample", "guardBits"]

    /// Pretty JSON with sorted keys, for a location file a person reads.
    public func prettyJSONString() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
        let data = (try? encoder.encode(self)) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// Compact JSON with sorted keys (what goes into a PNG's tEXt chunk).
    public func jsonString() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(self)) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}

/// Problems reading input files.
public enum FileError: Error, Equatable, CustomStringConvertible {
    /// The file at `path` cannot be read: `reason` says why (no such file, a folder, not a
    /// regular file, larger than `maximumSize`, permission denied).
    case unreadable(path: String, reason: String)
    /// The file at `path` was read but its contents are not valid: `reason` says why, naming the
    /// field where there is one.
    case malformed(path: String, reason: String)

    /// The error in one line, naming the file.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read '\(path)': \(reason)"
        case .malformed(let path, let reason): "'\(path)' is not a valid location file: \(reason)"
        }
    }

    /// The largest location file read (a PNG with its image, or JSON with a million-digit center).
    public static let maximumSize = 256 << 20

    /// The path of a `file:` URL; `unreadable` for any other.
    static func path(of url: URL) throws(FileError) -> String {
        guard let path = url.fileSystemPath else {
            throw .unreadable(path: url.absoluteString, reason: "not a file URL")
        }
        return path
    }

    static func readData(_ path: String) throws(FileError) -> Data {
        do { return try InputFile.read(path, maximumSize: FileError.maximumSize, kind: "a location file") } catch {
            throw .unreadable(path: path, reason: error.reason)
        }
    }

    /// Why decoding `json` failed, naming the field. Foundation reports a number that does
    /// not fit an integer field (2.5, 1e30) as "not valid JSON": valid JSON is told apart.
    static func describe(_ error: Error, json: Data) -> String {
        if case DecodingError.dataCorrupted(let context) = error, context.codingPath.isEmpty,
            let object = try? JSONSerialization.jsonObject(with: json)
        {
            guard let fields = object as? [String: Any] else { return "not a JSON object" }
            for key in LocationFile.integerFields {
                if let n = fields[key] as? NSNumber,
                    Int(exactly: n.doubleValue) == nil || Swift.abs(n.doubleValue) > 9e15
                {
                    return "field '\(key)': \(n) is not a whole number in range"
                }
            }
            return "a number that does not fit its field"
        }
        return describe(error)
    }

    static func describe(_ error: Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): return "missing field '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            let path = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
            return "field '\(path)' has the wrong type"
        case DecodingError.dataCorrupted(let context):
            if context.codingPath.isEmpty { return "not JSON" }
            let path = context.codingPath.map { $0.stringValue }.joined(separator: ".")
            // A value the type refused with its reason (a family's name, say): the reason.
            if context.debugDescription.hasPrefix("'") { return "field '\(path)': \(context.debugDescription)" }
            return "field '\(path)' is invalid"
        default: return "\(error)"
        }
    }
}

extension FileError: LocalizedError {
    /// The one-line message (`description`), so that `localizedDescription` reads it too.
    public var errorDescription: String? { description }
}
