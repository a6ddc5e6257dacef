import Dispatch
import FractalEngine
import FractalNumerics

/// Bits a sample of an image: PNG's two depths for RGB.
public enum BitDepth: Int, Sendable, CaseIterable, Codable {
    /// 8 bits a sample, 3 bytes a pixel.
    case eight = 8
    /// 16 bits a sample, 6 bytes a pixel, each sample big-endian.
    case sixteen = 16

    /// Bytes a pixel: 3 or 6.
    public var bytesPerPixel: Int { 3 * rawValue / 8 }
}

/// An RGB image, rows top to bottom, in PNG's sample order: 8 bits a sample (3 bytes a
/// pixel) or 16 bits a sample (6 bytes a pixel, each sample big-endian).
public struct RGBImage: Sendable, Equatable {
    /// The width in pixels.
    public let width: Int
    /// The height in pixels.
    public let height: Int
    /// Bits a sample.
    public let bitDepth: BitDepth
    /// The samples, `width * height * bitDepth.bytesPerPixel` bytes in the order above.
    public private(set) var pixels: [UInt8]

    /// An image of `pixels` in the order above. Throws `ColorError.invalid` unless the sizes
    /// are positive and `pixels` has `width * height * bitDepth.bytesPerPixel` bytes.
    public init(width: Int, height: Int, bitDepth: BitDepth = .eight, pixels: [UInt8]) throws(ColorError) {
        let (area, overflow) = width.multipliedReportingOverflow(by: height)
        let (bytes, overflow2) = area.multipliedReportingOverflow(by: bitDepth.bytesPerPixel)
        guard width > 0, height > 0, !overflow, !overflow2 else {
            throw .invalid(field: "width, height", reason: "\(width) x \(height) is not an image size")
        }
        guard pixels.count == bytes else {
            throw .invalid(
                field: "pixels",
                reason: "\(pixels.count) bytes, not the \(bytes) of \(width) x \(height) at \(bitDepth.rawValue) bits")
        }
        self.init(checkedWidth: width, height: height, bitDepth: bitDepth, pixels: pixels)
    }

    /// An image whose sizes the caller made consistent.
    init(checkedWidth width: Int, height: Int, bitDepth: BitDepth, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.bitDepth = bitDepth
        self.pixels = pixels
    }

    /// The pixel at (x, y) with each sample scaled to 0...65535 (an 8-bit sample v reads v * 257).
    public func sample(x: Int, y: Int) -> (UInt16, UInt16, UInt16) {
        let i = y * width + x
        if bitDepth == .eight {
            return (UInt16(pixels[3 * i]) * 257, UInt16(pixels[3 * i + 1]) * 257, UInt16(pixels[3 * i + 2]) * 257)
        }
        func word(_ k: Int) -> UInt16 { UInt16(pixels[6 * i + 2 * k]) << 8 | UInt16(pixels[6 * i + 2 * k + 1]) }
        return (word(0), word(1), word(2))
    }

    /// The pixel at (x, y) at 8 bits a sample (a 16-bit image's samples rounded to 8 bits).
    public subscript(x: Int, y: Int) -> (UInt8, UInt8, UInt8) {
        if bitDepth == .eight {
            let i = 3 * (y * width + x)
            return (pixels[i], pixels[i + 1], pixels[i + 2])
        }
        let (r, g, b) = sample(x: x, y: y)
        func eight(_ w: UInt16) -> UInt8 { UInt8((UInt32(w) * 255 + 32_767) / 65_535) }
        return (eight(r), eight(g), eight(b))
    }
}

/// Colours an `IterationField`: no iteration happens here, so recolouring is cheap.
public enum Colorizer {
    /// The colour of one pixel result.
    ///
    /// One pixel has no view to adapt to: `.automatic` reads as `.linear` here, and so does
    /// a histogram without quantiles. `image` resolves both from the whole field first
    /// (`ColorSettings.resolved(for:)`); resolve them yourself to colour pixels one by one.
    public static func color(_ p: PixelResult, rootCount: Int, settings: ColorSettings) -> RGB {
        color(p, extras: nil, rootCount: rootCount, settings: settings)
    }

    /// The colour of one pixel result with its extras (distance estimate, slope, trap).
    public static func color(_ p: PixelResult, extras e: PixelExtraValues?, rootCount: Int, settings: ColorSettings)
        -> RGB
    {
        if rootCount > 0 {
            // Newton: hue by root, brightness by speed.
            guard p.root > 0 else { return settings.interior }
            let hue = Double(p.root - 1) / Double(rootCount) + settings.offset
            let speed = settings.smooth ? p.smooth : Double(p.nBig)
            let value = 0.2 + 0.8 * Math.exp(-speed * settings.density / 16)
            return .hsv(hue: hue, saturation: 0.85, value: value)
        }
        var v: Double
        if settings.trap != nil, let e, e.trap.isFinite {
            // Orbit trap: the closest approach, one cycle per factor e of it at density 1.
            v = -32 * Math.log(Swift.max(Double(e.trap), 1e-300))
        } else {
            guard p.escaped || (!settings.smooth && p.n2 != 0) else { return settings.interior }
            v = settings.smooth ? p.smooth : Double(p.n2)
            switch settings.scale {
            case .log: v = 32 * Math.log(1 + max(0, v))
            case .histogram: if let q = settings.quantiles { v = 32 * ColorSettings.histogramShare(v, q) }
            case .linear, .automatic: break
            }
        }
        let phase = v * settings.density / 32 + settings.offset
        var c = settings.gradient?.color(at: phase) ?? settings.palette.color(at: phase)
        guard let e, p.escaped else { return c }
        var k = 1.0
        if let width = settings.boundaryWidth, e.distance.isFinite, width > 0 {
            k *= Swift.min(1, Swift.max(0, Double(e.distance) / width)).squareRoot()
        }
        if let light = settings.slope, e.slopeRe.isFinite {
            let a = light.angle * Double.pi / 180
            let t = Swift.max(
                0,
                (Double(e.slopeRe) * Math.cos(a) + Double(e.slopeIm) * Math.sin(a) + light.height) / (1 + light.height))
            k *= 1 - light.strength + light.strength * t
        }
        if k != 1 { c = RGB(c.r * k, c.g * k, c.b * k) }
        return c
    }

    /// One pixel's extras as the colouring reads them.
    public struct PixelExtraValues: Sendable {
        /// The distance estimate in pixel spacings (NaN: none, or the pixel did not escape).
        public var distance: Float
        /// The real part of the unit vector z / (dz/dc) at escape, for slope lighting (NaN: none).
        public var slopeRe: Float
        /// The imaginary part of that unit vector (NaN: none).
        public var slopeIm: Float
        /// The orbit's least distance to the trap (infinity: none).
        public var trap: Float
        /// Extras with the given values; the defaults mean none.
        public init(distance: Float = .nan, slopeRe: Float = .nan, slopeIm: Float = .nan, trap: Float = .infinity) {
            self.distance = distance
            self.slopeRe = slopeRe
            self.slopeIm = slopeIm
            self.trap = trap
        }
    }

    /// Pixel `i`'s extras in `field` (nil when the field has none).
    static func extras(_ field: IterationField, _ i: Int) -> PixelExtraValues? {
        guard let x = field.extras else { return nil }
        return PixelExtraValues(
            distance: x.distance.isEmpty ? .nan : x.distance[i], slopeRe: x.slopeRe.isEmpty ? .nan : x.slopeRe[i],
            slopeIm: x.slopeIm.isEmpty ? .nan : x.slopeIm[i], trap: x.trap.isEmpty ? .infinity : x.trap[i])
    }

    /// The whole image, at 8 or 16 bits a sample. With `supersample` k > 1 the field holds
    /// k x k samples a pixel (a field k times the image's width and height) and each pixel
    /// is the mean of its samples' colours (a box filter, before rounding). An automatic
    /// scale is resolved from the whole field first (every sample). A Newton field (one with
    /// roots) is coloured by root, with `field.rootCount` roots.
    ///
    /// Throws `ColorError.invalid` where the settings ask for what the field cannot give, never
    /// colouring as if they did not: `boundaryWidth` or `slope` without the field's distance
    /// data (render with `RenderSettings.extras.derivative`), `trap` without its trap data, a
    /// density or offset other than 1 and 0 under the automatic scale (which sets both: choose
    /// `.linear`, `.log` or `.histogram` to set them), a root index past `rootCount`, or a
    /// `supersample` that does not divide the field's sides.
    public static func image(
        _ field: IterationField, settings: ColorSettings, bitDepth: BitDepth = .eight, supersample k: Int = 1
    ) throws(ColorError) -> RGBImage {
        try check(settings, for: field)
        guard k >= 1, field.width % k == 0, field.height % k == 0, field.width > 0, field.height > 0 else {
            throw .invalid(
                field: "supersample",
                reason: "\(k) does not divide the field's \(field.width) x \(field.height) into whole pixels")
        }
        let settings = settings.resolved(for: field)
        let rootCount = field.hasRoots ? Swift.max(1, field.rootCount) : 0
        let width = field.width / k, height = field.height / k
        let count = width * height
        let bytesPerPixel = bitDepth.bytesPerPixel
        let pixels = [UInt8](unsafeUninitializedCapacity: count * bytesPerPixel) { buffer, initialized in
            // Rows in chunks on all cores: each pixel's colour depends on its own data only.
            let out = SendablePointer(buffer.baseAddress!)
            Parallel.forEachChunk(count, chunks: Swift.max(1, Swift.min(64, count * k * k / 16_384))) { range in
                for i in range {
                    var c = RGB.black
                    if k == 1 {
                        c = color(
                            field[i % width, i / width], extras: extras(field, i), rootCount: rootCount,
                            settings: settings)
                    } else {
                        let x0 = (i % width) * k, y0 = (i / width) * k
                        for y in y0..<y0 + k {
                            for x in x0..<x0 + k {
                                let s = color(
                                    field[x, y], extras: extras(field, y * field.width + x), rootCount: rootCount,
                                    settings: settings)
                                c = RGB(c.r + s.r, c.g + s.g, c.b + s.b)
                            }
                        }
                        let n = Double(k * k)
                        c = RGB(c.r / n, c.g / n, c.b / n)
                    }
                    let o = out.pointer + bytesPerPixel * i
                    if bitDepth == .eight {
                        (o[0], o[1], o[2]) = c.bytes
                    } else {
                        let (r, g, b) = c.words
                        (o[0], o[1], o[2], o[3], o[4], o[5]) =
                            (
                                UInt8(r >> 8), UInt8(r & 0xff), UInt8(g >> 8), UInt8(g & 0xff), UInt8(b >> 8),
                                UInt8(b & 0xff)
                            )
                    }
                }
            }
            initialized = count * bytesPerPixel
        }
        return RGBImage(checkedWidth: width, height: height, bitDepth: bitDepth, pixels: pixels)
    }

    /// Throws unless `field` holds the data `settings` colour with (see `image`).
    public static func check(_ settings: ColorSettings, for field: IterationField) throws(ColorError) {
        let request = settings.extrasRequest
        if request.derivative, field.extras?.distance.isEmpty ?? true {
            throw .invalid(
                field: settings.boundaryWidth != nil ? "boundaryWidth" : "slope",
                reason: "needs the field's distance data: render with RenderSettings.extras.derivative")
        }
        if request.trap != nil, field.extras?.trap.isEmpty ?? true {
            throw .invalid(field: "trap", reason: "needs the field's trap data: render with RenderSettings.extras.trap")
        }
        for (name, value) in [("density", settings.density), ("offset", settings.offset)] where !value.isFinite {
            throw .invalid(field: name, reason: "\(value) is not a finite number")
        }
        if settings.scale == .automatic, settings.density != 1 || settings.offset != 0 {
            throw .invalid(
                field: settings.density != 1 ? "density" : "offset",
                reason: "the automatic scale sets density and offset itself: choose scale linear, log or histogram")
        }
        if field.hasRoots, let largest = field.root.max(), Int(largest) > Swift.max(1, field.rootCount) {
            throw .invalid(
                field: "rootCount", reason: "the field holds root \(largest), past its rootCount \(field.rootCount)")
        }
    }
}
