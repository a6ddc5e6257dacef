import Foundation

/// Reads an iteration field back from the .npy file Fathom wrote (`NPYWriter`: NumPy format
/// 1.0, a structured array of shape (height, width) with n2 and nBig as little-endian uint32,
/// smooth as little-endian float64 and, for Newton, root as uint8), so a render can be
/// coloured again without iterating (Coloring.md). Anything else is refused with the reason:
/// another dtype or order, a shape past the image limits (`ImageSize`), a size that does not
/// match the shape.
public enum NPYReader {
    /// The largest file read: the header and 17 bytes a pixel at `ImageSize.maximumPixels`.
    public static let maximumSize = 4096 + 17 * ImageSize.maximumPixels

    /// `read(path:maxIterations:rootCount:)` for a `file:` URL (`NPYError.unreadable` for any other).
    public static func read(url: URL, maxIterations: Int? = nil, rootCount: Int? = nil) throws(NPYError)
        -> IterationField
    {
        guard let path = url.fileSystemPath else {
            throw .unreadable(path: url.absoluteString, reason: "not a file URL")
        }
        return try read(path: path, maxIterations: maxIterations, rootCount: rootCount)
    }

    /// The field in `path`, with `maxIterations` as its limit (nil: the largest count in it;
    /// the file does not hold the render's limit). A Newton field's `rootCount` is `rootCount`
    /// (its polynomial's degree, which the file does not hold; nil: the largest root index in
    /// it, which differs where a view shows not every root).
    public static func read(path: String, maxIterations: Int? = nil, rootCount: Int? = nil) throws(NPYError)
        -> IterationField
    {
        if let maxIterations, !(1...Location.maximumIterations).contains(maxIterations) {
            throw .malformed(
                path: path,
                reason: "an iteration limit of \(maxIterations) is outside 1...\(Location.maximumIterations)")
        }
        let data: Data
        do { data = try InputFile.read(path, maximumSize: maximumSize, kind: "an .npy field") } catch {
            throw .unreadable(path: path, reason: error.reason)
        }
        do throws(Failure) {
            var field = try field(Array(data), maxIterations: maxIterations)
            if field.hasRoots {
                let largest = Int(field.root.max() ?? 0)
                if let rootCount, rootCount < largest {
                    throw Failure(reason: "it holds root \(largest), more than the \(rootCount) roots given")
                }
                field.rootCount = Swift.max(1, rootCount ?? largest)
            }
            return field
        } catch {
            throw .malformed(path: path, reason: error.reason)
        }
    }

    struct Failure: Error {
        let reason: String
    }
}

/// Why an .npy field could not be read (`NPYReader`).
public enum NPYError: Error, Equatable, CustomStringConvertible {
    /// The file at `path` cannot be read: `reason` says why (not a regular file, larger than
    /// `NPYReader.maximumSize`, permission denied, or the system's error).
    case unreadable(path: String, reason: String)
    /// The file at `path` is not an iteration field as Fathom writes it: `reason` says what
    /// differs (format, dtype, order, shape or size).
    case malformed(path: String, reason: String)

    /// The error in one line, naming the file.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read '\(path)': \(reason)"
        case .malformed(let path, let reason): "'\(path)' is not a field Fathom wrote (.npy): \(reason)"
        }
    }
}

extension NPYReader {
    /// The field in a file's bytes.
    static func field(_ bytes: [UInt8], maxIterations: Int?) throws(Failure) -> IterationField {
        guard bytes.count >= 10, bytes[0] == 0x93, Array(bytes[1..<6]) == Array("NUMPY".utf8) else {
            throw Failure(reason: "not a NumPy .npy file")
        }
        guard bytes[6] == 1, bytes[7] == 0 else {
            throw Failure(reason: "NumPy format \(bytes[6]).\(bytes[7]), not the 1.0 Fathom writes")
        }
        let headerLength = Int(bytes[8]) | Int(bytes[9]) << 8
        guard bytes.count >= 10 + headerLength,
            let header = String(bytes: bytes[10..<(10 + headerLength)], encoding: .ascii)
        else { throw Failure(reason: "its header runs past the file") }
        let hasRoots: Bool
        if header.contains("'descr': [('n2', '<u4'), ('nBig', '<u4'), ('smooth', '<f8')],") {
            hasRoots = false
        } else if header.contains("'descr': [('n2', '<u4'), ('nBig', '<u4'), ('smooth', '<f8'), ('root', '|u1')],") {
            hasRoots = true
        } else {
            throw Failure(reason: "its dtype is not Fathom's (n2, nBig, smooth[, root])")
        }
        guard header.contains("'fortran_order': False") else { throw Failure(reason: "it is in Fortran order") }
        guard let open = header.range(of: "'shape': ("), let close = header[open.upperBound...].firstIndex(of: ")")
        else { throw Failure(reason: "its header has no shape") }
        let sides = header[open.upperBound..<close].split(separator: ",").map {
            Int($0.trimmingCharacters(in: .whitespaces))
        }
        guard sides.count == 2, let height = sides[0], let width = sides[1], width >= 1, height >= 1,
            width <= ImageSize.maximumSide, height <= ImageSize.maximumSide,
            width * height <= ImageSize.maximumPixels
        else {
            throw Failure(
                reason: "its shape (\(header[open.upperBound..<close])) is not rows, columns within "
                    + "\(ImageSize.maximumSide) and \(ImageSize.maximumPixels) pixels")
        }
        let itemSize = hasRoots ? 17 : 16, start = 10 + headerLength
        guard bytes.count - start == itemSize * width * height else {
            throw Failure(
                reason:
                    "\(bytes.count - start) bytes of data, where \(height) x \(width) pixels take \(itemSize * width * height)"
            )
        }
        func word<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
            var v: T = 0
            for k in 0..<MemoryLayout<T>.size { v |= T(bytes[offset + k]) << (8 * k) }
            return v
        }
        var counts = (n2: [UInt32](), nBig: [UInt32](), smooth: [Double](), root: [UInt8]())
        let pixels = width * height
        counts.n2.reserveCapacity(pixels)
        counts.nBig.reserveCapacity(pixels)
        counts.smooth.reserveCapacity(pixels)
        var largest = 0
        for i in 0..<pixels {
            let at = start + i * itemSize
            let n2 = word(UInt32.self, at: at), nBig = word(UInt32.self, at: at + 4)
            counts.n2.append(n2)
            counts.nBig.append(nBig)
            counts.smooth.append(Double(bitPattern: word(UInt64.self, at: at + 8)))
            if hasRoots { counts.root.append(bytes[at + 16]) }
            largest = max(largest, Int(n2), Int(nBig))
        }
        var field = IterationField(
            width: width, height: height, maxIterations: maxIterations ?? max(largest, 1), rootCount: hasRoots ? 1 : 0)
        field.n2 = counts.n2
        field.nBig = counts.nBig
        field.smooth = counts.smooth
        field.root = counts.root
        return field
    }
}

extension NPYError: LocalizedError {
    /// The one-line message (`description`), so that `localizedDescription` reads it too.
    public var errorDescription: String? { description }
}
