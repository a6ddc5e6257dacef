import Dispatch
import FractalEngine
import FractalNumerics

/// An 8-bit RGB image, rows top to bottom.
public struct RGBImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// 3 bytes a pixel.
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * 3)
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    public subscript(x: Int, y: Int) -> (UInt8, UInt8, UInt8) {
        let i = 3 * (y * width + x)
        return (pixels[i], pixels[i + 1], pixels[i + 2])
    }
}

/// Colours an `IterationField`: no iteration happens here, so recolouring is cheap.
public enum Colorizer {
    /// The colour of one pixel result.
    public static func color(_ p: PixelResult, rootCount: Int, settings: ColorSettings) -> RGB {
        if rootCount > 0 {
            // Newton: hue by root, brightness by speed.
            guard p.root > 0 else { return settings.interior }
            let hue = Double(p.root - 1) / Double(rootCount) + settings.offset
            let speed = settings.smooth ? p.smooth : Double(p.nBig)
            let value = 0.2 + 0.8 * Math.exp(-speed * settings.density / 16)
            return .hsv(hue: hue, saturation: 0.85, value: value)
        }
        guard p.escaped || (!settings.smooth && p.n2 != 0) else { return settings.interior }
        var v = settings.smooth ? p.smooth : Double(p.n2)
        if settings.scale == .log { v = 32 * Math.log(1 + max(0, v)) }
        return settings.palette.color(at: v * settings.density / 32 + settings.offset)
    }

    /// The whole image.
    public static func image(_ field: IterationField, rootCount: Int = 0, settings: ColorSettings) -> RGBImage {
        let count = field.pixelCount
        let pixels = [UInt8](unsafeUninitializedCapacity: count * 3) { buffer, initialized in
            // Rows in chunks on all cores: each pixel's colour depends on its own data only.
            let out = SendableBytes(buffer.baseAddress!)
            let chunks = Swift.max(1, Swift.min(64, count / 16_384))
            DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
                for i in count * chunk / chunks..<count * (chunk + 1) / chunks {
                    let p = PixelResult(n2: field.n2[i], nBig: field.nBig[i], smooth: field.smooth[i], root: field.hasRoots ? field.root[i] : 0)
                    let (r, g, b) = color(p, rootCount: rootCount, settings: settings).bytes
                    out.pointer[3 * i] = r
                    out.pointer[3 * i + 1] = g
                    out.pointer[3 * i + 2] = b
                }
            }
            initialized = count * 3
        }
        return RGBImage(width: field.width, height: field.height, pixels: pixels)
    }
}

/// The image buffer handed to concurrent chunks that write disjoint pixels.
private struct SendableBytes: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<UInt8>
    init(_ pointer: UnsafeMutablePointer<UInt8>) { self.pointer = pointer }
}
