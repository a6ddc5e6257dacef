internal import CEXR
import Foundation
import FractalEngine

/// An exponential map as OpenEXR (`fathom expmap --exr`), written a band of rows at a time into
/// output `index` of an `OutputSet`, with the channels Kalles Fraktaler writes for zoomasm:
/// N (uint: the escape count's whole part plus `bias`, 0xFFFFFFFF where the pixel did not
/// escape) and NF (float: the smooth count's fraction, 0 where it did not escape), so that
/// N + NF - IterationsBias is the smooth count; the header's int attributes Iterations and
/// IterationsBias and the string attribute fathom-location (the location's JSON). With `distance`,
/// also DEX and DEY (floats: the distance estimate as a vector, KF's convention: its length the
/// estimate in the field's pixels, its direction z / (dz/dc) conjugated, that is in image axes
/// with y down; 0 where the pixel did not escape). Single part,
/// scanlines, ZIP, increasing Y: row 0 of the map first. OpenEXR's C library is opened at run
/// time (CEXR); where it is missing, creating the stream fails with one line.
public final class EXRStream {
    private var file: OpaquePointer?
    private let path: String
    /// The map's width in pixels.
    public let width: Int
    /// The map's height in rows.
    public let height: Int
    /// KF's bias on N.
    public static let bias: Int32 = 1024
    private let rowsPerChunk: Int
    private var n: [UInt32] = []
    private var nf: [Float] = []
    private var dex: [Float] = []
    private var dey: [Float] = []
    /// Whether it writes DEX and DEY.
    public let distance: Bool
    /// What the distances are multiplied by (a change of unit: KF's files measure them in pixels
    /// of a flat frame, `ExpmapCommand`).
    public let distanceScale: Float
    /// Rows written to the file, and rows buffered for the next chunk.
    private var rowsWritten = 0

    /// Nil when OpenEXR's C library can be used, else why not.
    public static var unavailableReason: String? {
        var message = [CChar](repeating: 0, count: 256)
        return fathom_exr_available(&message, message.count) == 1 ? nil : text(message)
    }

    /// Creates the file for output `index` of `set`: a `width` x `height` map rendered at
    /// `maxIterations`, with `location` (its JSON) in the header, and with `distance` the DEX and DEY
    /// channels, the distances multiplied by `distanceScale`.
    ///
    /// Throws `OutputError.cannotCreate` when the size or `maxIterations` + `bias` does not fit the
    /// channels, when OpenEXR's library is unavailable, or when the file cannot be created.
    public init(
        _ set: OutputSet, at index: Int, width: Int, height: Int, maxIterations: Int, location: String,
        distance: Bool = false, distanceScale: Float = 1
    ) throws(OutputError) {
        path = try set.path(index)
        guard width > 0, height > 0, let w = Int32(exactly: width), let h = Int32(exactly: height),
            let limit = Int32(exactly: maxIterations),
            Int(limit) + Int(EXRStream.bias) < Int(UInt32.max)
        else {
            throw .cannotCreate(
                path: path,
                reason: "an EXR of \(width)x\(height) at \(maxIterations) iterations does not fit its channels")
        }
        if let reason = EXRStream.unavailableReason { throw .cannotCreate(path: path, reason: reason) }
        let temporary = try set.temporaryPath(index)
        var message = [CChar](repeating: 0, count: 256)
        guard
            let file = fathom_exr_create(
                temporary, w, h, distance ? 1 : 0, limit, EXRStream.bias, location, &message, message.count)
        else { throw .cannotCreate(path: path, reason: EXRStream.text(message)) }
        self.file = file
        self.width = width
        self.height = height
        self.distance = distance
        self.distanceScale = distanceScale
        rowsPerChunk = Int(fathom_exr_rows_per_chunk(file))
    }

    deinit { if let file { fathom_exr_discard(file) } }

    /// Appends `field`'s rows `rows` (all of them by default: the next rows of the file),
    /// writing every chunk they complete. With `distance`, the field carries the derivative's
    /// extras.
    public func append(_ field: IterationField, rows: Range<Int>? = nil) throws(OutputError) {
        let rows = rows ?? 0..<field.height
        guard field.width == width, rows.lowerBound >= 0, rows.upperBound <= field.height,
            rows.count <= height - rowsWritten - n.count / width
        else {
            throw .cannotCreate(
                path: path,
                reason:
                    "rows of \(field.width) pixels do not fit the \(width) x \(height) image after \(rowsWritten) rows")
        }
        let pixels = rows.lowerBound * width..<rows.upperBound * width
        if distance {
            guard let extras = field.extras, extras.distance.count == field.pixelCount else {
                throw .cannotCreate(path: path, reason: "the rows carry no distance estimate")
            }
            for i in pixels {
                let d = extras.distance[i] * distanceScale
                let escaped = field.nBig[i] != 0 && d.isFinite && extras.slopeRe[i].isFinite
                dex.append(escaped ? d * extras.slopeRe[i] : 0)
                dey.append(escaped ? -d * extras.slopeIm[i] : 0)
            }
        }
        for i in pixels {
            if field.nBig[i] == 0 {
                n.append(UInt32.max)
                nf.append(0)
            } else {
                // A smooth count that is not a finite count (a field not from Fathom): its nBig.
                let smooth = field.smooth[i]
                let value = smooth.isFinite && Swift.abs(smooth) < 1e15 ? smooth : Double(field.nBig[i])
                let whole = value.rounded(.down)
                n.append(UInt32(clamping: Int64(whole) + Int64(EXRStream.bias)))
                nf.append(Float(value - whole))
            }
        }
        // Every chunk the buffered rows complete (the last one may be shorter), then the rest kept.
        var offset = 0
        while true {
            let buffered = (n.count - offset) / width
            let rows = min(rowsPerChunk, buffered)
            guard rows > 0, rows == rowsPerChunk || rowsWritten + buffered == height else { break }
            try writeChunk(from: offset, rows: rows)
            offset += rows * width
        }
        n.removeFirst(offset)
        nf.removeFirst(offset)
        if distance {
            dex.removeFirst(offset)
            dey.removeFirst(offset)
        }
    }

    private func writeChunk(from offset: Int, rows: Int) throws(OutputError) {
        guard let file else { throw .cannotCreate(path: path, reason: "written after it was finished") }
        var message = [CChar](repeating: 0, count: 256)
        let status = n.withUnsafeBufferPointer { n in
            nf.withUnsafeBufferPointer { nf in
                dex.withUnsafeBufferPointer { dex in
                    dey.withUnsafeBufferPointer { dey in
                        fathom_exr_write(
                            file, Int32(rowsWritten), Int32(rows), n.baseAddress! + offset, nf.baseAddress! + offset,
                            distance ? dex.baseAddress! + offset : nil, distance ? dey.baseAddress! + offset : nil,
                            &message, message.count)
                    }
                }
            }
        }
        guard status == 0 else { throw .cannotCreate(path: path, reason: text(message)) }
        rowsWritten += rows
    }

    /// A C message buffer's text.
    private static func text(_ message: [CChar]) -> String {
        String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    private func text(_ message: [CChar]) -> String { EXRStream.text(message) }

    /// Finishes the file once every row is written (the set then commits it).
    public func finish() throws(OutputError) {
        guard rowsWritten == height && n.isEmpty else {
            throw .cannotCreate(path: path, reason: "\(rowsWritten) of the image's \(height) rows were written")
        }
        guard let file else { return }
        self.file = nil
        var message = [CChar](repeating: 0, count: 256)
        guard fathom_exr_finish(file, &message, message.count) == 0 else {
            throw .cannotCreate(path: path, reason: text(message))
        }
    }

    /// Rows `rows` of channel `name` of the EXR at `path`, as 32-bit words (N's, or NF's
    /// floats' bits), and the file's size: a reader through the same library, for the
    /// package's tests (not public: it reads what this writer wrote, no more).
    package static func read(_ path: String, channel name: String, rows: Range<Int>) throws(ImageReadError) -> (
        words: [UInt32], width: Int, height: Int
    ) {
        var message = [CChar](repeating: 0, count: 256)
        var w: Int32 = 0, h: Int32 = 0
        // The width first (one row), then the rows asked for.
        var probe = [UInt32](repeating: 0, count: 32768)
        guard fathom_exr_read(path, name, 0, 1, &probe, &w, &h, &message, message.count) == 0 else {
            throw .unreadable(path: path, reason: text(message))
        }
        var words = [UInt32](repeating: 0, count: Int(w) * rows.count)
        guard
            fathom_exr_read(
                path, name, Int32(rows.lowerBound), Int32(rows.count), &words, &w, &h, &message, message.count)
                == 0
        else { throw .unreadable(path: path, reason: text(message)) }
        return (words, Int(w), Int(h))
    }

    /// The int attribute `name` of the EXR at `path` (for the package's tests, as `read`).
    package static func readInt(_ path: String, attribute name: String) throws(ImageReadError) -> Int {
        var message = [CChar](repeating: 0, count: 256)
        var value: Int32 = 0
        guard fathom_exr_read_int(path, name, &value, &message, message.count) == 0 else {
            throw .unreadable(path: path, reason: text(message))
        }
        return Int(value)
    }
}
