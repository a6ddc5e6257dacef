import Dispatch
import FractalEngine
import FractalNumerics

/// An RGB image, rows top to bottom, in PNG's sample order: 8 bits a sample (3 bytes a
/// pixel) or 16 bits a sample (6 bytes a pixel, each sample big-endian).
public struct RGBImage: Sendable, Equatable {
    /// The width in pixels.
    public let width: Int
    /// The height in pixels.
    public let height: Int
    /// 8 or 16.
    public let bitDepth: Int
    /// The samples, `width * height * 3 * bitDepth / 8` bytes in the order above.
    public var pixels: [UInt8]

    /// An image of `pixels` in the order above; traps unless `bitDepth` is 8 or 16 and
    /// `pixels` has `width * height * 3 * bitDepth / 8` bytes.
    public init(width: Int, height: Int, bitDepth: Int = 8, pixels: [UInt8]) {
        precondition(bitDepth == 8 || bitDepth == 16)
        precondition(pixels.count == width * height * 3 * bitDepth / 8)
        self.width = width
        self.height = height
        self.bitDepth = bitDepth
        self.pixels = pixels
    }

    /// The pixel at (x, y) with each sample scaled to 0...65535 (an 8-bit sample v reads v * 257).
    public func sample(x: Int, y: Int) -> (UInt16, UInt16, UInt16) {
        let i = y * width + x
        if bitDepth == 8 {
            return (UInt16(pixels[3 * i]) * 257, UInt16(pixels[3 * i + 1]) * 257, UInt16(pixels[3 * i + 2]) * 257)
        }
        func word(_ k: Int) -> UInt16 { UInt16(pixels[6 * i + 2 * k]) << 8 | UInt16(pixels[6 * i + 2 * k + 1]) }
        return (word(0), word(1), word(2))
    }

    /// The 8-bit pixel at (x, y) (an 8-bit image).
    public subscript(x: Int, y: Int) -> (UInt8, UInt8, UInt8) {
        precondition(bitDepth == 8)
        let i = 3 * (y * width + x)
        return (pixels[i], pixels[i + 1], pixels[i + 2])
    }
}

/// Colours an `IterationField`: no iteration happens here, so recolouring is cheap.
public enum Colorizer {
    /// The colour of one pixel result.
    ///
    /// One pixel has no view to adapt to: `.automatic` reads as `.linear` here, and so does
    /// a histogram without quantiles. `image` resolves both from the whole field first
    /// (`ColorSettings.resolved(for:rootCount:)`); resolve them yourself to colour pixels one by one.
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
    /// scale is resolved from the whole field first (every sample).
    public static func image(
        _ field: IterationField, rootCount: Int = 0, settings: ColorSettings, bitDepth: Int = 8,
        supersample k: Int = 1
    ) -> RGBImage {
        let settings = settings.resolved(for: field, rootCount: rootCount)
        precondition(bitDepth == 8 || bitDepth == 16)
        precondition(k >= 1 && field.width % k == 0 && field.height % k == 0)
        let width = field.width / k, height = field.height / k
        let count = width * height
        let bytesPerPixel = 3 * bitDepth / 8
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
                    if bitDepth == 8 {
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
        return RGBImage(width: width, height: height, bitDepth: bitDepth, pixels: pixels)
    }
}
