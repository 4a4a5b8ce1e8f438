"""A minimal PDF writer for the fixtures: pages of Helvetica text lines, or pages without text."""

from __future__ import annotations


def make_pdf(pages: list[list[str]]) -> bytes:
    """A PDF whose page i shows the lines ``pages[i]`` (Latin-1 text); an empty list gives a
    page with a grey box and no text layer."""
    objs: list[bytes] = []

    def add(body: bytes) -> int:
        objs.append(body)
        return len(objs)

    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    pages_id = len(objs) + 1 + 2 * len(pages)
    kids = []
    for lines in pages:
        ops = []
        if lines:
            ops.append(b"BT /F1 12 Tf 72 720 Td 14 TL")
            for line in lines:
                esc = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
                ops.append(b"(" + esc.encode("latin-1") + b") Tj T*")
            ops.append(b"ET")
        else:
            ops.append(b"0.9 g 72 600 200 100 re f")
        stream = b"\n".join(ops)
        content = add(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        page = add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
                   b"/Resources << /Font << /F1 %d 0 R >> >> >>" % (pages_id, content, font))
        kids.append(page)
    kid_refs = b" ".join(b"%d 0 R" % k for k in kids)
    assert add(b"<< /Type /Pages /Kids [" + kid_refs + b"] /Count %d >>" % len(kids)) == pages_id
    catalog = add(b"<< /Type /Catalog /Pages %d 0 R >>" % pages_id)
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for n, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    for o in offsets:
        out += b"%010d 00000 n \n" % o
    out += (b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n"
            % (len(objs) + 1, catalog, xref))
    return bytes(out)
