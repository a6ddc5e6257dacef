import Foundation
import FractalEngine

/// Writes an `IterationField` as a NumPy .npy file (format version 1.0, numpy.org's
/// "NEP 1: a simple file format for NumPy arrays"): one structured array of shape
/// (height, width), rows top to bottom, with the fields n2 and nBig (little-endian uint32),
/// smooth (little-endian float64; NaN where the pixel did not escape) and, for Newton
/// fields, root (uint8). `numpy.load(path)["smooth"]` gives the smooth counts.
public enum NPYWriter {
    /// The header: magic, version 1.0, header length, then the dict padded with spaces and a
    /// newline so that the data start at a multiple of 64 bytes.
    public static func header(width: Int, height: Int, hasRoots: Bool) -> [UInt8] {
        let fields = "('n2', '<u4'), ('nBig', '<u4'), ('smooth', '<f8')" + (hasRoots ? ", ('root', '|u1')" : "")
        var dict = "{'descr': [\(fields)], 'fortran_order': False, 'shape': (\(height), \(width)), }"
        let fixed = 10  // magic (6) + version (2) + header length (2)
        let total = (fixed + dict.utf8.count + 1 + 63) / 64 * 64
        dict += String(repeating: " ", count: total - fixed - dict.utf8.count - 1) + "\n"
        let length = UInt16(dict.utf8.count)
        return [0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(length & 0xff), UInt8(length >> 8)] + Array(dict.utf8)
    }

    /// The whole file's bytes.
    public static func data(_ field: IterationField) -> Data {
        Data(header(width: field.width, height: field.height, hasRoots: field.hasRoots)) + rows(field)
    }

    /// The field's rows as the array's data (no header).
    public static func rows(_ field: IterationField) -> Data {
        let itemSize = 16 + (field.hasRoots ? 1 : 0)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(itemSize * field.pixelCount)
        func append<T: FixedWidthInteger>(_ v: T) {
            withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) }
        }
        for i in 0..<field.pixelCount {
            append(field.n2[i])
            append(field.nBig[i])
            append(field.smooth[i].bitPattern)
            if field.hasRoots { bytes.append(field.root[i]) }
        }
        return Data(bytes)
    }

    /// Writes `field` to `path` by the output rules (`OutputSet`).
    public static func write(_ field: IterationField, to path: String) throws(OutputError) {
        try OutputSet.write(data(field), to: path)
    }

    /// `write(_:to:)` for a `file:` URL (`OutputError.cannotCreate` for any other).
    public static func write(_ field: IterationField, to url: URL) throws(OutputError) {
        try write(field, to: try OutputError.path(of: url))
    }
}

/// An .npy file of `height` rows written a band of rows at a time (an exponential map), into
/// output `index` of an `OutputSet`: the header first, then each band's rows in order.
public final class NPYStream {
    private let file: StagedFile
    /// The array's width in pixels.
    public let width: Int
    /// The array's height in rows.
    public let height: Int
    private let hasRoots: Bool
    /// Rows written so far.
    public private(set) var rowsWritten = 0

    /// Creates output `index` of `set` and writes the header of a `height` x `width` array, with the
    /// root field when `hasRoots`.
    public init(_ set: OutputSet, at index: Int, width: Int, height: Int, hasRoots: Bool = false) throws(OutputError) {
        file = try StagedFile(set, at: index)
        self.width = width
        self.height = height
        self.hasRoots = hasRoots
        try file.append(Data(NPYWriter.header(width: width, height: height, hasRoots: hasRoots)))
    }

    /// Appends `field`'s rows: the next `field.height` rows of the array.
    public func append(_ field: IterationField) throws(OutputError) {
        guard field.width == width, field.hasRoots == hasRoots, field.height <= height - rowsWritten else {
            throw .cannotCreate(
                path: file.path,
                reason: "rows of \(field.width) x \(field.height)\(field.hasRoots ? " with roots" : "") do not fit the "
                    + "\(width) x \(height)\(hasRoots ? " with roots" : "") array after \(rowsWritten) rows")
        }
        try file.append(NPYWriter.rows(field))
        rowsWritten += field.height
    }

    /// Closes the file once every row is written (the set then commits it).
    public func finish() throws(OutputError) {
        guard rowsWritten == height else {
            throw .cannotCreate(path: file.path, reason: "\(rowsWritten) of the array's \(height) rows were written")
        }
        try file.close()
    }
}
