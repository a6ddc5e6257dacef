import Foundation
import FractalEngine
import FractalImaging
import Testing

@Suite("NPY export")
struct NPYTests {
    func sampleField() -> IterationField {
        var field = IterationField(width: 3, height: 2, maxIterations: 1000)
        for i in 0..<5 {
            field.n2[i] = UInt32(10 * i + 1)
            field.nBig[i] = UInt32(10 * i + 3)
            field.smooth[i] = Double(10 * i) + 0.25 + Double(i) / 7
        }
        return field  // pixel 5 did not escape: 0, 0, NaN
    }

    @Test("the header is NumPy's format 1.0, byte for byte, and the data start at a multiple of 64")
    func header() {
        let dict =
            "{'descr': [('n2', '<u4'), ('nBig', '<u4'), ('smooth', '<f8')], 'fortran_order': False, 'shape': (2, 3), }"
        let padded = dict + String(repeating: " ", count: 128 - 10 - dict.utf8.count - 1) + "\n"
        let expected: [UInt8] =
            [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, UInt8(padded.utf8.count), 0x00] + Array(padded.utf8)
        let header = NPYWriter.header(width: 3, height: 2, hasRoots: false)
        #expect(header == expected)
        #expect(header.count == 128)
        #expect(NPYWriter.header(width: 1920, height: 1080, hasRoots: true).count % 64 == 0)
    }

    @Test("each pixel is 16 little-endian bytes: n2, nBig, smooth's bits")
    func records() {
        let field = sampleField()
        let bytes = [UInt8](NPYWriter.data(field))
        #expect(bytes.count == 128 + 16 * 6)
        func u32(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * $1) } }
        func f64(_ at: Int) -> Double {
            Double(bitPattern: (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * $1) })
        }
        for i in 0..<6 {
            let at = 128 + 16 * i
            #expect(u32(at) == field.n2[i])
            #expect(u32(at + 4) == field.nBig[i])
            let s = f64(at + 8)
            #expect(s == field.smooth[i] || (s.isNaN && field.smooth[i].isNaN))
        }
    }

    static let numpy: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
        for folder in path.split(separator: ":") {
            let python = String(folder) + "/python3"
            guard FileManager.default.isExecutableFile(atPath: python) else { continue }
            let p = Process()
            p.executableURL = URL(fileURLWithPath: python)
            p.arguments = ["-c", "import numpy"]
            p.standardError = FileHandle.nullDevice
            if (try? p.run()) != nil {
                p.waitUntilExit()
                if p.terminationStatus == 0 { return python }
            }
        }
        return nil
    }()

    @Test(
        "numpy loads the file with the right shape and values (where numpy is installed)",
        .enabled(if: NPYTests.numpy != nil, "python3 with numpy is not installed"))
    func numpyLoads() throws {
        let folder = NSTemporaryDirectory() + "fathom-npy-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/field.npy"
        let field = sampleField()
        try NPYWriter.write(field, to: path)
        let script = """
            import numpy, sys
            a = numpy.load(sys.argv[1])
            print(a.shape, a.dtype.names)
            print(" ".join(str(int(v)) for v in a["n2"].ravel()))
            print(" ".join(str(int(v)) for v in a["nBig"].ravel()))
            print(" ".join(repr(float(v)) for v in a["smooth"].ravel()))
            """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: NPYTests.numpy!)
        p.arguments = ["-c", script, path]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let lines = out.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        guard lines.count == 4 else { return }
        #expect(lines[0] == "(2, 3) ('n2', 'nBig', 'smooth')")
        #expect(lines[1] == field.n2.map { String($0) }.joined(separator: " "))
        #expect(lines[2] == field.nBig.map { String($0) }.joined(separator: " "))
        let smooth = lines[3].split(separator: " ").map { Double($0) ?? .infinity }
        #expect(smooth.count == 6)
        for (a, b) in zip(smooth, field.smooth) { #expect(a == b || (a.isNaN && b.isNaN)) }
    }
}
