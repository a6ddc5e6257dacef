import CPNG
import Foundation
import FractalEngine

/// Writes PNG files through libpng, by the output rules of `OutputSet` (FractalEngine/Output/OutputSet.swift):
/// the image goes to a temporary file, moved into place only when complete, so a failed or
/// interrupted write leaves nothing at `path`.
public enum PNGWriter {
    /// Writes `image` with `text` as iTXt chunks (keyword: Latin-1, 1 to 79 characters; text:
    /// UTF-8 without NUL).
    public static func write(_ image: RGBImage, to path: String, text: [(String, String)] = []) throws(OutputError) {
        let set = try OutputSet([path])
        try stage(image, text: text, in: set, at: 0)
        try set.commit()
    }

    /// Encodes `image` into output `index` of `set` (committed by the caller).
    public static func stage(_ image: RGBImage, text: [(String, String)] = [], in set: OutputSet, at index: Int)
        throws(OutputError)
    {
        let temporary = try set.temporaryPath(index)
        let path = set.paths[index]
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
                        temporary, pixels.baseAddress, UInt32(image.width), UInt32(image.height),
                        Int32(image.bitDepth.rawValue),
                        k.baseAddress, v.baseAddress, Int32(text.count), &message, Int32(message.count))
                }
            }
        }
        guard status == 0 else {
            set.abort()
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw .cannotCreate(path: path, reason: reason.isEmpty ? "write failed" : reason)
        }
    }
}
