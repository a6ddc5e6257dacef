import Foundation
import FractalNumerics

/// The frames of a zoom reprojected from an exponential map (`fathom expmap --npy`):
/// Documentation/Sequences.md, "Videos from an exponential map". Each frame's pixel at radius
/// rho and angle theta from the center samples the map's coloured rows around
/// log2 rho and its columns around theta, bilinearly (the columns wrap). The map stops at the
/// location's radius, so a frame's inner disc there comes from a flat render of the location
/// itself at the frame size, sampled bilinearly at the frame's scale (at the last frame,
/// at its own pixels: exact). The colours are the location's, resolved once from that flat
/// render (as a sequence resolves them from its deepest frame).
public struct ExponentialMapVideo {
    /// The location file the map was rendered for (its colours and engine settings apply).
    public let file: LocationFile
    /// The file's location, checked.
    public let location: Location
    /// The map's geometry, its width and height those of the NPY file's array.
    public let map: ExponentialMap
    private let path: String
    private let dataOffset: UInt64
    /// log2 of the location's radius.
    public let log2Radius: Double

    /// Why a map file cannot be read.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The file at `path` is not an exponential map of this location, for `reason`.
        case notAMap(path: String, reason: String)
        /// The file named, and the reason, in one line.
        public var description: String {
            switch self {
            case .notAMap(let path, let reason): "'\(path)' is not an exponential map of this location: \(reason)"
            }
        }
    }

    /// The map in the NPY file at `mapPath`, rendered by `fathom expmap --npy` for `file`.
    public init(mapPath: String, location file: LocationFile) throws {
        self.file = file
        location = try file.location()
        let radius: BigFloat
        do { radius = try BigFloat(parsing: location.radius, precision: Precision(bits: 64)) } catch {
            throw LocationError.badNumber(field: "radius", text: location.radius)
        }
        log2Radius = radius.floatExpValue.log2Magnitude
        path = mapPath
        let handle: FileHandle
        do { handle = try InputFile.open(mapPath) } catch {
            throw FileError.unreadable(path: mapPath, reason: error.reason)
        }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 10)) ?? Data())
        guard head.count == 10, head[0] == 0x93, Array(head[1..<6]) == Array("NUMPY".utf8), head[6] == 1 else {
            throw Failure.notAMap(path: mapPath, reason: "not a NumPy 1.0 file")
        }
        let length = Int(head[8]) | Int(head[9]) << 8
        let dict = String(decoding: (try? handle.read(upToCount: length)) ?? Data(), as: UTF8.self)
        // The fields `fathom expmap --npy` writes, then the shape (H, W).
        guard dict.contains("('n2', '<u4'), ('nBig', '<u4'), ('smooth', '<f8')]"), !dict.contains("root"),
            let shape = dict.range(of: "'shape': (")
        else { throw Failure.notAMap(path: mapPath, reason: "not Fathom's iteration data") }
        let numbers = dict[shape.upperBound...].prefix { $0 != ")" }.split(separator: ",").compactMap {
            Int($0.trimmingCharacters(in: .whitespaces))
        }
        guard numbers.count == 2 else { throw Failure.notAMap(path: mapPath, reason: "not a 2-D array") }
        map = try ExponentialMap(width: numbers[1], log2Radius: log2Radius, radius: location.radius)
        guard map.height == numbers[0] else {
            throw Failure.notAMap(
                path: mapPath, reason: "\(numbers[0]) rows, where a map \(numbers[1]) wide has \(map.height)")
        }
        dataOffset = UInt64(10 + length)
        let size = (try? FileManager.default.attributesOfItem(atPath: mapPath)[.size] as? UInt64) ?? 0
        guard size == dataOffset + UInt64(16 * map.width * map.height) else {
            throw Failure.notAMap(path: mapPath, reason: "\(size) bytes, not those of its shape")
        }
    }

    /// The most frames `frameRadii` returns (at 30 fps, almost four days of video).
    public static let maximumFrames = 10_000_000

    /// log2 of each frame's radius: from the largest whose corners lie inside the map's first
    /// row down to the location's radius, `octavesPerSecond` octaves a second at `fps` (the
    /// last frame exactly at the location's radius). The count is computed and bounded before
    /// the array is made: more than `maximumFrames` (or a speed or rate that is not a positive
    /// finite number) is refused.
    public func frameRadii(width: Int, height: Int, fps: Double, octavesPerSecond: Double) throws(FathomError)
        -> [Double]
    {
        guard width > 0, height > 0, fps.isFinite, fps > 0, octavesPerSecond.isFinite, octavesPerSecond > 0 else {
            throw .badVideoRate(fps: fps, octavesPerSecond: octavesPerSecond)
        }
        let w = Double(width), h = Double(height)
        let corner = Math.log2((w * w + h * h).squareRoot() / min(w, h))
        let start = map.log2Radius(row: 0) - corner
        let octaves = max(0, start - log2Radius)
        let step = octavesPerSecond / fps
        let frames = (octaves / step).rounded(.down)
        // Frames 0...frames, and the location's own radius when the last step falls short of it.
        guard frames.isFinite, frames < Double(Self.maximumFrames) else {
            throw .tooManyVideoFrames(frames + 1, maximum: Self.maximumFrames)
        }
        let count = Int(frames)
        return (0...count).map { start - Double($0) * step } + (octaves / step == frames ? [] : [log2Radius])
    }

    /// Renders the flat view at the location's radius (the inner disc, and the colours), then
    /// calls `frame` with each frame's image, in order. Throws `LocationError.badSize` for a
    /// frame size outside `ImageSize`'s and `FathomError.badFrameRadius` for a radius that is
    /// not finite or lies more than 64 octaves inside the location's radius or outside the
    /// map, before any work.
    public func frames(
        width: Int, height: Int, log2Radii: [Double], settings: RenderSettings, control: RenderControl? = nil,
        frame: (Int, RGBImage) throws -> Void
    ) throws {
        try ImageSize.validate(width: width, height: height)
        // From 64 octaves inside the location's radius to 64 outside the map: beyond, a frame
        // shows one colour, and its rows would not fit an Int.
        let accepted = (log2Radius - 64)...(ExponentialMap.log2OuterRadius + 64)
        if let bad = log2Radii.firstIndex(where: { !accepted.contains($0) }) {
            throw FathomError.badFrameRadius(index: bad, log2Radius: log2Radii[bad])
        }
        var flatSettings = settings
        try file.engine?.apply(to: &flatSettings)
        flatSettings.width = width
        flatSettings.height = height
        flatSettings.extras = ExtrasRequest()
        flatSettings.projection = .flat
        let flat = try Renderer.render(location: location, settings: flatSettings, control: control).field
        var color = file.color ?? ColorSettings()
        color.boundaryWidth = nil
        color.slope = nil
        color.trap = nil
        color = color.resolved(for: flat)
        let flatImage = try Colorizer.image(flat, settings: color)
        let handle: FileHandle
        do { handle = try InputFile.open(path) } catch { throw FileError.unreadable(path: path, reason: error.reason) }
        defer { try? handle.close() }
        let half = Double(min(width, height)) / 2
        // Each pixel's log2 distance from the center (in pixels) and its map column: the same in
        // every frame, so computed once.
        var log2Distance = [Double](repeating: 0, count: width * height)
        var column = [Double](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let u = Double(x) + 0.5 - Double(width) / 2, v = Double(height) / 2 - Double(y) - 0.5
                var angle = Math.atan2(v, u)
                if angle < 0 { angle += 2 * Double.pi }
                log2Distance[y * width + x] = Math.log2((u * u + v * v).squareRoot())
                column[y * width + x] = angle * Double(map.width) / (2 * Double.pi) - 0.5
            }
        }
        for (k, log2r) in log2Radii.enumerated() {
            if control?.isCancelled == true { throw RenderError.cancelled }
            // log2 of the pixel size; the rows from the corners' radius in to the center pixel's.
            let log2s = log2r - Math.log2(half)
            let outer = log2s + Math.log2((Double(width * width + height * height)).squareRoot() / 2)
            let inner = log2s - 1
            let first = max(0, Int(row(outer).rounded(.down)))
            let last = min(map.height - 1, Int(row(inner).rounded(.up)))
            let strip = first <= last ? try coloured(rows: first...last, handle: handle, color: color) : nil
            let scale = Math.exp2(log2r - log2Radius)
            var pixels = [UInt8](repeating: 0, count: 3 * width * height)
            for y in 0..<height {
                for x in 0..<width {
                    let j = row(log2s + log2Distance[y * width + x])
                    let rgb: (Double, Double, Double)
                    if let strip, j <= Double(map.height - 1) {
                        rgb = bilinear(strip, x: column[y * width + x], y: max(j, 0) - Double(first), wrap: true)
                    } else {
                        let u = Double(x) + 0.5 - Double(width) / 2, v = Double(height) / 2 - Double(y) - 0.5
                        let fx = u * scale + Double(width) / 2 - 0.5, fy = Double(height) / 2 - 0.5 - v * scale
                        rgb = bilinear(flatImage, x: fx, y: fy, wrap: false)
                    }
                    let o = 3 * (y * width + x)
                    pixels[o] = UInt8(rgb.0.rounded())
                    pixels[o + 1] = UInt8(rgb.1.rounded())
                    pixels[o + 2] = UInt8(rgb.2.rounded())
                }
            }
            try frame(k, try RGBImage(width: width, height: height, pixels: pixels))
        }
    }

    /// The fractional row of log2 radius `log2rho`.
    private func row(_ log2rho: Double) -> Double {
        (ExponentialMap.log2OuterRadius - log2rho) / map.log2RowStep - 0.5
    }

    /// Rows `rows` of the map, coloured.
    private func coloured(rows: ClosedRange<Int>, handle: FileHandle, color: ColorSettings) throws -> RGBImage {
        let rowBytes = 16 * map.width
        try handle.seek(toOffset: dataOffset + UInt64(rows.lowerBound * rowBytes))
        guard let data = try handle.read(upToCount: rows.count * rowBytes), data.count == rows.count * rowBytes else {
            throw FileError.malformed(path: path, reason: "cut short")
        }
        var field = IterationField(
            width: map.width, height: rows.count, maxIterations: location.maxIterations)
        data.withUnsafeBytes { raw in
            for i in 0..<field.pixelCount {
                field.n2[i] = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 16 * i, as: UInt32.self))
                field.nBig[i] = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 16 * i + 4, as: UInt32.self))
                field.smooth[i] = Double(
                    bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 16 * i + 8, as: UInt64.self)))
            }
        }
        return try Colorizer.image(field, settings: color)
    }

    /// `image` at (x, y) in pixel-center coordinates, bilinearly; x wraps or clamps, y clamps.
    private func bilinear(_ image: RGBImage, x: Double, y: Double, wrap: Bool) -> (Double, Double, Double) {
        let w = image.width, h = image.height
        let yc = min(max(y, 0), Double(h - 1))
        // Clamped to where every column and row is: never a conversion of a huge x to Int.
        let xb = x.isNaN ? 0 : min(max(x, -2 * Double(w)), 3 * Double(w))
        let x0 = Int(xb.rounded(.down)), y0 = Int(yc.rounded(.down))
        let fx = xb - Double(x0), fy = yc - Double(y0)
        func column(_ c: Int) -> Int { wrap ? ((c % w) + w) % w : min(max(c, 0), w - 1) }
        let xs = (column(x0), column(x0 + 1)), ys = (y0, min(y0 + 1, h - 1))
        let fxc = wrap ? fx : (x < 0 || x > Double(w - 1) ? 0 : fx)
        var out = (0.0, 0.0, 0.0)
        for (yy, wy) in [(ys.0, 1 - fy), (ys.1, fy)] {
            for (xx, wx) in [(xs.0, 1 - fxc), (xs.1, fxc)] {
                let o = 3 * (yy * w + xx), weight = wx * wy
                out.0 += weight * Double(image.pixels[o])
                out.1 += weight * Double(image.pixels[o + 1])
                out.2 += weight * Double(image.pixels[o + 2])
            }
        }
        return out
    }
}

extension ExponentialMapVideo.Failure: LocalizedError {
    /// The one-line message (`description`), so that `localizedDescription` reads it too.
    public var errorDescription: String? { description }
}
