internal import CPNG
import Foundation
import FractalEngine

/// Reads PNG files: pixels through libpng, text chunks by walking the chunk list.
public enum PNGReader {
    /// `read(path:)` for a `file:` URL (`ImageReadError.unreadable` for any other).
    public static func read(url: URL) throws(ImageReadError) -> RGBImage {
        guard let path = url.fileSystemPath else {
            throw .unreadable(path: url.absoluteString, reason: "not a file URL")
        }
        return try read(path: path)
    }

    /// The image as RGB at its bit depth (8, or 16 for a 16-bit file).
    public static func read(path: String) throws(ImageReadError) -> RGBImage {
        // The input rules first (a FIFO or a device would block libpng's read).
        let handle: FileHandle
        do { handle = try InputFile.open(path) } catch { throw .unreadable(path: path, reason: error.reason) }
        try? handle.close()
        var pixels: UnsafeMutableRawPointer?
        var width: UInt32 = 0, height: UInt32 = 0
        var depth: Int32 = 8
        var message = [CChar](repeating: 0, count: 256)
        let status = fathom_png_read_rgb(path, &pixels, &width, &height, &depth, &message, Int32(message.count))
        guard status == 0, let pixels else {
            throw .unreadable(
                path: path,
                reason: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        defer { fathom_png_free(pixels) }
        let samples = Int(width) * Int(height) * 3
        if depth == 16 {
            let words = UnsafeBufferPointer(start: pixels.assumingMemoryBound(to: UInt16.self), count: samples)
            let bytes = words.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] }
            return RGBImage(checkedWidth: Int(width), height: Int(height), bitDepth: .sixteen, pixels: bytes)
        }
        let bytes = Array(UnsafeBufferPointer(start: pixels.assumingMemoryBound(to: UInt8.self), count: samples))
        return RGBImage(checkedWidth: Int(width), height: Int(height), bitDepth: .eight, pixels: bytes)
    }

    /// The text chunks (tEXt, and uncompressed iTXt), keyword -> text, in file order.
    public static func textChunks(path: String) throws(ImageReadError) -> [(String, String)] {
        let data: Data
        do { data = try InputFile.read(path, maximumSize: Int.max) } catch {
            throw .unreadable(path: path, reason: error.reason)
        }
        return try textChunks(bytes: [UInt8](data), path: path)
    }

    /// The tEXt chunks in a PNG file's bytes (`textChunks(path:)` without the reading); `path`
    /// names the file in errors.
    public static func textChunks(bytes: [UInt8], path: String) throws(ImageReadError) -> [(String, String)] {
        guard bytes.count >= 8, bytes[0..<8] == [137, 80, 78, 71, 13, 10, 26, 10] else {
            throw .unreadable(path: path, reason: "not a PNG file")
        }
        var chunks: [(String, String)] = []
        var i = 8
        while i + 12 <= bytes.count {
            let length = Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            let type = String(decoding: bytes[i + 4..<i + 8], as: UTF8.self)
            let start = i + 8
            guard start + length + 4 <= bytes.count else { throw .unreadable(path: path, reason: "truncated chunk") }
            let body = bytes[start..<start + length]
            if type == "tEXt", let zero = body.firstIndex(of: 0) {
                // tEXt is Latin-1: bytes map to scalars one to one. Fathom before 0.5 wrote its
                // location's UTF-8 bytes there: that chunk is read as UTF-8 when it is valid.
                let key = latin1(body[start..<zero])
                let raw = body[(zero + 1)...]
                if key == "fathom-location", let utf8 = String(validating: raw, as: UTF8.self) {
                    chunks.append((key, utf8))
                } else {
                    chunks.append((key, latin1(raw)))
                }
            } else if type == "iTXt", let zero = body.firstIndex(of: 0), zero + 2 < body.endIndex,
                body[zero + 1] == 0
            {
                // iTXt: keyword, NUL, compression flag (0: none; compressed text is skipped),
                // method, language tag, NUL, translated keyword, NUL, UTF-8 text.
                let afterFlags = zero + 3
                if let language = body[afterFlags...].firstIndex(of: 0),
                    let translated = body[(language + 1)...].firstIndex(of: 0),
                    let text = String(validating: body[(translated + 1)...], as: UTF8.self)
                {
                    chunks.append((latin1(body[start..<zero]), text))
                }
            }
            if type == "IEND" { break }
            i = start + length + 4
        }
        return chunks
    }
}

/// Latin-1 bytes as text: each byte one scalar.
private func latin1(_ bytes: ArraySlice<UInt8>) -> String {
    String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
}

/// Why an image could not be read.
public enum ImageReadError: Error, Equatable, CustomStringConvertible {
    /// The image at `path` could not be read, and why.
    case unreadable(path: String, reason: String)

    /// A one-line message naming the file and the reason.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read image '\(path)': \(reason)"
        }
    }
}

extension ImageReadError: LocalizedError {
    /// The one-line message (`description`), so that `localizedDescription` reads it too.
    public var errorDescription: String? { description }
}
