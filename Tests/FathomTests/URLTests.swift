import Fathom
import Foundation
import Testing

@Suite("File URLs beside paths, and a file's own render settings")
struct URLTests {
    @Test("every reader and writer takes a file URL as its path, and refuses another scheme in one line")
    func urls() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fixture = repositoryFile("Tests/FathomTests/Fixtures/pub_b_e14.json")
        #expect(try LocationFile.read(url: fixture) == LocationFile.read(path: fixture.path))
        #expect(try OracleFile.read(url: fixture).pixels.count == OracleFile.read(path: fixture.path).pixels.count)
        let web = try #require(URL(string: "https://example.org/view.json"))
        #expect(throws: FileError.unreadable(path: web.absoluteString, reason: "not a file URL")) {
            try LocationFile.read(url: web)
        }
        #expect(throws: OutputError.cannotCreate(path: web.absoluteString, reason: "not a file URL")) {
            try ImageRender.render(LocationFile.read(url: fixture), to: web)
        }

        // A render to URLs, at the file's own size (the fixture gives none: 1280 x 720 would be
        // the default, so a size is set) and guard bits.
        var file = try LocationFile.read(url: fixture)
        (file.width, file.height, file.guardBits) = (48, 27, 44)
        let settings = try file.renderSettings()
        #expect(settings.width == 48 && settings.height == 27 && settings.guardBits == 44)
        let png = URL(fileURLWithPath: folder + "/a view.png"), npy = URL(fileURLWithPath: folder + "/a view.npy")
        let result = try ImageRender.render(file, to: png, npy: npy)
        #expect(result.field.width == 48 && result.field.height == 27)
        #expect(
            result.report.requiredBits
                == (try Renderer.plan(location: file.location(), settings: settings)).requiredBits)
        let image = try PNGReader.read(url: png)
        #expect(image.width == 48 && image.height == 27)
        #expect(try NPYReader.read(url: npy, maxIterations: file.maxIterations) == result.field)
        // The writers' URL forms write what their path forms write.
        try PNGWriter.write(image, to: URL(fileURLWithPath: folder + "/copy.png"))
        #expect(try PNGReader.read(path: folder + "/copy.png") == image)
        try NPYWriter.write(result.field, to: URL(fileURLWithPath: folder + "/copy.npy"))
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: folder + "/copy.npy")) == Data(contentsOf: npy))
        #expect(throws: ImageReadError.self) { try PNGReader.read(url: web) }
        #expect(throws: NPYError.self) { try NPYReader.read(url: web) }
        // A size the file gives outside the limits: refused by renderSettings, before any work.
        file.width = 0
        #expect(throws: LocationError.badSize(width: 0, height: 27)) { try file.renderSettings() }
    }
}
