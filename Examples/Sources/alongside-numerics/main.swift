// alongside-numerics: Fathom in a tool that also imports swift-numerics' ComplexModule (here its
// stand-in, StandIns/ComplexModule): `Complex` is that package's type, unambiguously, beside
// Fathom's API. Renders the Julia set of c = -0.123 + 0.745i (the Douady rabbit) on a 64 x 32 grid whose pixel
// coordinates are exact in binary (spacing 1/8, centred on 0) and checks the field's point
// symmetry: z -> -z maps the set onto itself, and negation is exact, so the pixel at (x, y) and
// the one at (63 - x, 31 - y) must take the same iterations.
import ComplexModule
import Fathom
import Foundation

let c = Complex(-0.123, 0.745)
let w = c * c + c  // swift-numerics' operators, as a tool using it would write them
guard w == Complex(-0.123 * -0.123 - 0.745 * 0.745 - 0.123, 2 * -0.123 * 0.745 + 0.745) else {
    fatalError("alongside-numerics: the stand-in's arithmetic is wrong")
}

let location = Location(
    family: .julia(re: "\(c.real)", im: "\(c.imaginary)"), centerRe: "0", centerIm: "0", radius: "2",
    maxIterations: 1000)
do {
    let field = try Renderer.render(location: location, settings: RenderSettings(width: 64, height: 32)).field
    var escaped = 0
    for y in 0..<32 {
        for x in 0..<64 {
            let (p, q) = (field[x, y], field[63 - x, 31 - y])
            guard p.nBig == q.nBig else {
                FileHandle.standardError.write(Data("alongside-numerics: (\(x), \(y)) \(p.nBig) != \(q.nBig)\n".utf8))
                exit(1)
            }
            if p.escaped { escaped += 1 }
        }
    }
    guard escaped > 0 && escaped < 64 * 32 else {
        FileHandle.standardError.write(Data("alongside-numerics: \(escaped) of 2048 pixels escaped\n".utf8))
        exit(1)
    }
    print("alongside-numerics: c = \(c.real) + \(c.imaginary)i, \(escaped) of 2048 pixels escaped, point-symmetric")
} catch {
    FileHandle.standardError.write(Data("alongside-numerics: \(error)\n".utf8))
    exit(1)
}
