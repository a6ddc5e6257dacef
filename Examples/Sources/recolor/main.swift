// recolor FIELD.npy OUT.png [PALETTE]: colours a field written by `fathom render --npy` (or
// NPYWriter) again, with another palette, without iterating: the .npy holds every pixel's
// counts and smooth value, which is all colouring reads.
import Fathom
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 3 || arguments.count == 4 else {
    FileHandle.standardError.write(Data("usage: recolor FIELD.npy OUT.png [hot|cold|gray|chromatic|cosine]\n".utf8))
    exit(64)
}
let name = arguments.count == 4 ? arguments[3] : "cold"
guard let palette = Palette(rawValue: name) else {
    FileHandle.standardError.write(Data("recolor: no palette '\(name)'\n".utf8))
    exit(64)
}
do {
    let field = try NPYReader.read(path: arguments[1])
    let image = try Colorizer.image(field, settings: ColorSettings(palette: palette))
    try PNGWriter.write(image, to: arguments[2])
    let escaped = field.nBig.filter { $0 != 0 }.count
    print("wrote \(arguments[2]): \(field.width)x\(field.height), \(name), \(escaped) pixels escaped")
} catch {
    FileHandle.standardError.write(Data("recolor: \(error)\n".utf8))
    exit(1)
}
