internal import CPNG
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

    /// `write(_:to:text:)` for a `file:` URL (`OutputError.cannotCreate` for any other).
    public static func write(_ image: RGBImage, to url: URL, text: [(String, String)] = []) throws(OutputError) {
        try write(image, to: try OutputError.path(of: url), text: text)
    }

    /// Encodes `image` into output `index` of `set` (committed by the caller).
    public static func stage(_ image: RGBImage, text: [(String, String)] = [], in set: OutputSet, at index: Int)
        throws(OutputError)
    {
        let temporary = try set.temporaryPath(index)
        let path = set.paths[index]
        var message = [CChar](repeating: 0, count: 256)
        let status = withText(text) { keys, values in
            image.pixels.withUnsafeBufferPointer { pixels in
                fathom_png_write(
                    temporary, pixels.baseAddress, UInt32(image.width), UInt32(image.height),
                    Int32(image.bitDepth.rawValue), keys, values, Int32(text.count), &message, Int32(message.count))
            }
        }
        guard status == 0 else {
            set.abort()
            let reason = reason(message)
            throw .cannotCreate(path: path, reason: reason.isEmpty ? "write failed" : reason)
        }
    }

    /// The PNG file of `image` with `text` (as `write`), in memory: for a server's response, a
    /// thumbnail, a database. Throws `ImageEncodeError` when libpng cannot encode it (a text
    /// keyword outside 1 to 79 Latin-1 characters, no memory).
    public static func encode(_ image: RGBImage, text: [(String, String)] = []) throws(ImageEncodeError) -> Data {
        var message = [CChar](repeating: 0, count: 256)
        var bytes: UnsafeMutableRawPointer?
        var count = 0
        let status = withText(text) { keys, values in
            image.pixels.withUnsafeBufferPointer { pixels in
                fathom_png_encode(
                    pixels.baseAddress, UInt32(image.width), UInt32(image.height), Int32(image.bitDepth.rawValue),
                    keys, values, Int32(text.count), &bytes, &count, &message, Int32(message.count))
            }
        }
        guard status == 0, let bytes else { throw .failed(reason: reason(message)) }
        return Data(bytesNoCopy: bytes, count: count, deallocator: .custom { pointer, _ in fathom_png_free(pointer) })
    }

    /// `body` with `text`'s keys and values as C strings (NULL for no text).
    private static func withText<R>(
        _ text: [(String, String)],
        _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<UnsafePointer<CChar>?>?) -> R
    ) -> R {
        let keys = text.map { strdup($0.0) }
        let values = text.map { strdup($0.1) }
        defer {
            keys.forEach { free($0) }
            values.forEach { free($0) }
        }
        return keys.map { UnsafePointer($0) }.withUnsafeBufferPointer { k in
            values.map { UnsafePointer($0) }.withUnsafeBufferPointer { v in body(k.baseAddress, v.baseAddress) }
        }
    }

    /// libpng's message, or "libpng failed" where it left none.
    private static func reason(_ message: [CChar]) -> String {
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? "libpng failed" : text
    }
}

/// Why an image could not be encoded in memory (`PNGWriter.encode`).
public enum ImageEncodeError: Error, Equatable, CustomStringConvertible {
    /// libpng refused the image or its text, or ran out of memory; `reason` is its message.
    case failed(reason: String)

    /// A one-line message.
    public var description: String {
        switch self {
        case .failed(let reason): "cannot encode the PNG: \(reason)"
        }
    }
}

extension ImageEncodeError: LocalizedError {
    /// The one-line message (`description`), so that `localizedDescription` reads it too.
    public var errorDescription: String? { description }
}
