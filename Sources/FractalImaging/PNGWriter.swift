import CPNG
import Foundation

/// Why an image could not be written.
public enum ImageWriteError: Error, Equatable, CustomStringConvertible {
    case cannotCreate(path: String, reason: String)

    public var description: String {
        switch self {
        case .cannotCreate(let path, let reason): "cannot write '\(path)': \(reason)"
        }
    }
}

/// Writes PNG files through libpng, atomically: the image goes to a temporary file in the
/// same folder, which is renamed over `path` only when complete, so a failed or interrupted
/// write leaves no file (and never a partial one) at `path`.
public enum PNGWriter {
    /// Writes `image` with `text` as tEXt chunks (keyword -> Latin-1 text without NUL).
    public static func write(_ image: RGBImage, to path: String, text: [(String, String)] = []) throws(ImageWriteError) {
        let temporary = try AtomicFile.temporaryPath(for: path)
        var message = [CChar](repeating: 0, count: 256)
        let keys = text.map { strdup($0.0) }
        let values = text.map { strdup($0.1) }
        defer {
            keys.forEach { free($0) }
            values.forEach { free($0) }
        }
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            keys.map { UnsafePointer($0) }.withUnsafeBufferPointer { k in
                values.map { UnsafePointer($0) }.withUnsafeBufferPointer { v in
                    fathom_png_write(
                        temporary, pixels.baseAddress, UInt32(image.width), UInt32(image.height), Int32(image.bitDepth),
                        k.baseAddress, v.baseAddress, Int32(text.count), &message, Int32(message.count))
                }
            }
        }
        guard status == 0 else {
            unlink(temporary)
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw .cannotCreate(path: path, reason: reason.isEmpty ? "write failed" : reason)
        }
        try AtomicFile.commit(temporary, to: path)
    }
}
