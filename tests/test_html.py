"""The two HTML converters: same output on realistic pages, and each one on hostile markup.

``_html_fast`` (selectolax, the ``html`` extra; installed by the ``test`` extra) and
``_html_regex`` (the fallback) must give the same sections, so that an index does not depend
on which one a machine has. Every test of behaviour runs against both.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from textsearch import _html
from textsearch._html import Sections
from textsearch._html import _regex as _html_regex

Converter = Callable[[str | bytes], Sections]


def _fast() -> Converter:
    pytest.importorskip("selectolax")
    from textsearch._html import _fast as _html_fast

    return _html_fast.html_sections


@pytest.fixture(params=["regex", "selectolax"])
def convert(request: pytest.FixtureRequest) -> Converter:
    return _html_regex.html_sections if request.param == "regex" else _fast()


def _text(sections: Sections) -> str:
    return "\n\n".join(text for _, _, text in sections[1])


MARKUP = re.compile(r"<[a-zA-Z/!?]|&[a-zA-Z]+;|&#\d+;")

# -- realistic pages, built here in the shapes the common documentation generators write ----


def _sphinx(i: int) -> str:
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
  <title>Retry policies &#8212; Guide {i} documentation</title>
  <link rel="stylesheet" href="_static/pygments.css"><script src="_static/doctools.js"></script>
</head>
<body>
  <div class="related" role="navigation"><ul><li><a href="genindex.html">index</a></li></ul></div>
  <div class="document"><div class="documentwrapper"><div class="bodywrapper">
    <div class="body" role="main">
  <section id="retry-policies">
<h1>Retry policies<a class="headerlink" href="#retry-policies">¶</a></h1>
<p>A request that fails with <code class="docutils literal"><span class="pre">429</span></code>
is retried after the delay the server asks for &mdash; never sooner.</p>
<section id="backoff-{i}">
<h2>Exponential backoff<a class="headerlink" href="#backoff-{i}">¶</a></h2>
<p>Each attempt waits twice as long as the one before, plus jitter:</p>
<div class="highlight-python notranslate"><div class="highlight"><pre><span></span>
<span class="n">delay</span> <span class="o">=</span> <span class="mi">2</span>\
 <span class="o">**</span> <span class="n">attempt</span>
</pre></div></div>
<ul class="simple">
<li><p>the first retry waits 1&nbsp;s;</p></li>
<li><p>the cap is 30&nbsp;s &amp; the total deadline still applies.</p></li>
</ul>
</section>
<section id="idempotency">
<h2>Idempotency<a class="headerlink" href="#idempotency">¶</a></h2>
<table class="docutils"><thead><tr><th>Method</th><th>Safe</th></tr></thead>
<tbody><tr><td>GET</td><td>yes</td></tr><tr><td>POST</td><td>with a key</td></tr></tbody></table>
<dl><dt>key</dt><dd><p>An <em>idempotency key</em> sent as a header.</p></dd></dl>
</section>
</section>
    </div></div></div>
    <div class="sphinxsidebar" role="navigation"><h3>Navigation</h3><ul><li>Intro</li></ul></div>
  </div>
  <div class="footer">&#169;2026, The Authors.</div>
</body></html>
"""


def _mdbook(i: int) -> str:
    return f"""<!DOCTYPE HTML>
<html lang="en" class="light sidebar-visible" dir="ltr">
    <head>
        <meta charset="UTF-8">
        <title>Closures - Example Book {i}</title>
        <style>.content {{ max-width: 750px; }}</style>
        <script>const path_to_root = "../";</script>
    </head>
    <body>
    <div id="mdbook-help-container"><div id="mdbook-help-popup">
        <h2 class="mdbook-help-title">Keyboard shortcuts</h2>
        <div><p>Press <kbd>&larr;</kbd> or <kbd>&rarr;</kbd> to navigate</p></div>
    </div></div>
    <nav id="sidebar" class="sidebar" aria-label="Table of contents">
        <ol class="chapter"><li class="chapter-item"><a href="intro.html">Introduction</a></li>
        <li class="chapter-item"><a href="closures.html" class="active">Closures</a></li></ol>
    </nav>
    <div id="page-wrapper" class="page-wrapper"><div class="page">
        <div id="menu-bar" class="menu-bar"><h1 class="menu-title">Example Book</h1>
          <button id="theme-toggle" class="icon-button" type="button">Theme</button></div>
        <div id="content" class="content">
            <main>
<h1 id="closures"><a class="header" href="#closures">Closures</a></h1>
<p>Closures are functions that can capture the enclosing environment. For example, a
closure that captures the <code>x</code> variable:</p>
<pre><code class="language-rust">|val| val + x
</code></pre>
<h2 id="capturing-{i}"><a class="header" href="#capturing-{i}">Capturing</a></h2>
<p>Closures can capture variables by reference: <code>&amp;T</code>, by mutable
reference: <code>&amp;mut T</code>, or by value: <code>T</code>.</p>
<blockquote><p>Note: the compiler picks the least restrictive one.</p></blockquote>
<h3 id="see-also"><a class="header" href="#see-also">See also</a></h3>
<p><a href="https://doc.rust-lang.org/std/ops/trait.Fn.html"><code>Fn</code></a>,
<a href="../std/box.html"><code>Box</code></a></p>
            </main>
            <nav class="nav-wrapper" aria-label="Page navigation">
                <a rel="prev" href="fn.html" class="mobile-nav-chapters previous">&lsaquo;</a>
            </nav>
        </div>
    </div></div>
    <script src="book.js"></script>
    </body>
</html>
"""


def _docbook(i: int) -> str:
    # gtk-doc/DocBook: upper-case tags, anchors as <a name/> (XHTML self-closing, which HTML5
    # reads as an open <a>), attributes across lines.
    return f"""<HTML><HEAD><TITLE>xsltIf {i}: the XSLT engine</TITLE>
<META NAME="GENERATOR" CONTENT="Modular DocBook HTML Stylesheet"></HEAD>
<BODY CLASS="refentry" BGCOLOR="#FFFFFF">
<DIV CLASS="NAVHEADER"><TABLE SUMMARY="Header navigation table" WIDTH="100%"><TR>
<TH COLSPAN="3" ALIGN="center">Reference</TH></TR></TABLE><HR ALIGN="LEFT" WIDTH="100%"></DIV>
<H1><A
NAME="TRANSFORM-{i}"
></A>transform</H1>
<DIV CLASS="refsect2" lang="en"><h3><a name="xsltApplyOne"/>xsltApplyOne ()</h3>
<pre class="programlisting">void	xsltApplyOne	(xsltTransformContextPtr ctxt)<br/>
</pre><p>Processes one node.</p>
</DIV><hr/>
<div class="refsect2" lang="en"><h3><a name="xsltIf"/>xsltIf ()</h3>
<pre class="programlisting">void	xsltIf	(xsltTransformContextPtr ctxt,
	xmlNodePtr node)<br/>
</pre><p>Processes the xsl:if instruction on the source node.</p>
<div class="variablelist"><table border="0"><col align="left"><tbody>
<tr><td><span class="term"><i><tt>ctxt</tt></i>:</span></td><td>a XSLT process context</td></tr>
</tbody></table></div></div>
</BODY></HTML>
"""


def _blog(i: int) -> str:
    # A CMS page: a big header and footer, a cookie banner, the post in <article>.
    links = "".join(f"<li><a href='/p{n}'>Popular post {n}</a></li>" for n in range(15))
    return f"""<!doctype html><html><head><title>Why we rewrote the cache | Blog</title>
<meta property="og:title" content="ignored"><script type="application/ld+json">{{"a": 1}}</script>
</head><body>
<header class="site-header"><a href="/">Home</a><ul>{links}</ul>
<form role="search"><input name="q"><button>Search</button></form></header>
<div class="cookie-banner"><p>We use cookies.</p><button>Accept</button></div>
<article class="post" id="post-{i}">
<h1 class="entry-title">Why we rewrote the cache</h1>
<p class="meta">March 3, 2026 &middot; 6 min read</p>
<p>Our old cache kept every entry forever. It &ldquo;worked&rdquo; until it didn&rsquo;t:
memory grew by 2&nbsp;GB a day.</p>
<h2 id="eviction">Eviction</h2>
<p>We evict by <strong>least recently used</strong> order, with a size bound.</p>
<figure><img src="lru.png" alt="LRU"><figcaption>Figure 1: the LRU list.</figcaption></figure>
<h2>Results</h2><p>Peak memory fell from 9&nbsp;GB to 1.2&nbsp;GB.<br>Latency did not change.</p>
<noscript><p>Enable JavaScript to see the comments.</p></noscript>
<template id="comment"><p>Comment template</p></template>
</article>
<aside><h2>Related</h2><ul>{links}</ul></aside>
<footer><p>&copy; 2026 Example Inc. All rights reserved.</p></footer>
</body></html>
"""


def _cjk(i: int) -> str:
    return f"""<html lang="ja"><head><meta charset="utf-8"><title>クロージャ {i}</title></head>
<body><nav><a href="/">ホーム</a></nav><main>
<h1 id="closures">クロージャ</h1><p>クロージャは周囲の環境を捕捉できる関数です。</p>
<h2 id="捕捉">捕捉</h2><p>変数を参照で捕捉します：<code>&amp;T</code>。</p>
<h2>中文</h2><p>闭包可以捕获环境中的变量。</p><h2>한국어</h2><p>클로저는 환경을 캡처합니다.</p>
</main></body></html>
"""


def _wiki(i: int) -> str:
    # No <main>: the whole page minus chrome; headings with ids on a <span> inside them.
    return f"""<html><head><title>Okapi BM25 - Wiki {i}</title></head><body>
<div id="mw-head"><ul><li>Talk</li><li>Edit</li></ul></div>
<div id="content"><h1 id="firstHeading">Okapi BM25</h1>
<div id="bodyContent"><p><b>Okapi BM25</b> is a ranking function used by search engines
to estimate the relevance of documents to a given search query.</p>
<div id="toc"><h2>Contents</h2><ul><li><a href="#The_ranking_function">1 The ranking
function</a></li></ul></div>
<h2><span class="mw-headline" id="The_ranking_function">The ranking function</span></h2>
<p>Given a query <i>Q</i>, containing keywords <i>q</i><sub>1</sub>, ...,
<i>q</i><sub>n</sub>, the score of a document <i>D</i> is:</p>
<math><mi>score</mi></math><p>where <i>k</i><sub>1</sub> &isin; [1.2, 2.0] and
<i>b</i> = 0.75.</p>
<h2><span class="mw-headline" id="IDF">IDF information theoretic interpretation</span></h2>
<p>Here we interpret&hellip;</p></div></div>
<div id="footer"><ul><li>Privacy policy</li></ul></div></body></html>
"""


BUILDERS = (_sphinx, _mdbook, _docbook, _blog, _cjk, _wiki)
PAGES = [build(i) for build in BUILDERS for i in range(2)]


@pytest.mark.parametrize("page", PAGES, ids=[f"{b.__name__}-{i}" for b in BUILDERS for i in (0, 1)])
def test_both_converters_give_the_same_sections_on_realistic_pages(page: str) -> None:
    fast = _fast()
    assert fast(page) == _html_regex.html_sections(page)
    assert fast(page.encode()) == _html_regex.html_sections(page.encode())


def _text_in_head(data: bytes) -> bool:
    head = re.search(rb"<head[\s>](.*?)</head>", data, re.DOTALL | re.IGNORECASE)
    if head is None:
        return False
    elements = rb"(?is)<(script|style|title|noscript)[\s>].*?</\1\s*>|<!--.*?-->|<[^>]*>"
    inner = re.sub(elements, b"", head.group(1))
    return bool(inner.strip())


def test_both_converters_agree_on_the_html_files_of_this_machine() -> None:
    # Documentation that ships with the system, read in place when present (never copied).
    docs = Path("/usr/share/doc")
    found = sorted(p for p in docs.glob("*/*.htm*") if p.suffix in (".html", ".htm"))[:80]
    files = [p for p in found if p.is_file() and 2_000 < p.stat().st_size < 400_000]
    if not files:
        pytest.skip("no HTML files under /usr/share/doc")
    fast = _fast()
    for file in files:
        data = file.read_bytes()
        if _text_in_head(data):
            continue  # HTML5 moves it into the body, the regex pass drops it
        assert fast(data) == _html_regex.html_sections(data), file


def test_realistic_pages_come_out_clean_and_sectioned(convert: Converter) -> None:
    title, sections = convert(_sphinx(0))
    assert title == "Retry policies — Guide 0 documentation"
    assert [(h, a) for h, a, _ in sections] == [
        (None, None),
        ("Retry policies", "retry-policies"),  # no "¶" link (class="headerlink")
        ("Exponential backoff", "backoff-0"),
        ("Idempotency", "idempotency"),
    ]  # the sidebar, a <div role="navigation">, is page chrome as a <nav> is
    backoff = sections[2][2]
    assert "delay = 2 ** attempt" in backoff and "1\xa0s" not in backoff and "1 s;" in backoff
    assert "30 s & the total" in backoff
    assert "©2026" in _text((title, sections))  # a <div class="footer"> is not chrome
    for page in PAGES:
        title, sections = convert(page)
        assert title and not MARKUP.search(title)
        for heading, _, body in sections:
            assert not MARKUP.search(body), body
            assert heading is None or not MARKUP.search(heading)


def test_main_content_and_chrome(convert: Converter) -> None:
    title, sections = convert(_blog(0))
    assert title == "Why we rewrote the cache | Blog"
    assert [h for h, _, _ in sections] == [None, "Why we rewrote the cache", "Eviction", "Results"]
    text = _text((title, sections))
    for noise in ("cookies", "Popular post", "Search", "Related", "rights reserved", "Comment"):
        assert noise not in text
    assert "“worked” until it didn’t" in text and "Figure 1: the LRU list." in text
    assert "9 GB to 1.2 GB.\nLatency did not change." in text
    _, sections = convert(_mdbook(0))
    # <main> holds most of the text: the help popup (outside it) is left out
    assert [(h, a) for h, a, _ in sections] == [
        (None, None),
        ("Closures", "closures"),
        ("Capturing", "capturing-0"),
        ("See also", "see-also"),
    ]
    assert sections[1][2].endswith("|val| val + x")


def test_anchors_from_docbook_and_wiki_pages(convert: Converter) -> None:
    _, sections = convert(_docbook(0))
    assert [(h, a) for h, a, _ in sections][1:] == [
        ("transform", "TRANSFORM-0"),
        ("xsltApplyOne ()", "xsltApplyOne"),
        ("xsltIf ()", "xsltIf"),  # not xsltApplyOne, which HTML5 re-opens inside this heading
    ]
    # a <pre> as written: its tabs and its indentation are the code's
    assert "void\txsltIf\t(xsltTransformContextPtr ctxt,\n\txmlNodePtr node)" in sections[3][2]
    _, sections = convert(_wiki(0))
    assert [(h, a) for h, a, _ in sections][1:] == [
        ("Okapi BM25", "firstHeading"),
        ("Contents", "toc"),  # the id of the <div> right before it
        ("The ranking function", "The_ranking_function"),
        ("IDF information theoretic interpretation", "IDF"),
    ]
    assert "a document D is:\n\nwhere k1" in sections[3][2]  # <math> is not prose
    assert "k1 ∈ [1.2, 2.0]" in sections[3][2]


def test_cjk_pages(convert: Converter) -> None:
    title, sections = convert(_cjk(0))
    assert title == "クロージャ 0"
    assert [(h, a) for h, a, _ in sections][1:] == [
        ("クロージャ", "closures"),
        ("捕捉", "捕捉"),
        ("中文", None),
        ("한국어", None),
    ]
    assert sections[2][2] == "変数を参照で捕捉します：&T。"
    assert "ホーム" not in _text((title, sections))


# -- hostile markup ------------------------------------------------------------------------


def test_unclosed_paragraphs_and_list_items(convert: Converter) -> None:
    _, sections = convert("<ul><li>one<li>two<li>three</ul><p>first<p>second<div>third</div>")
    assert sections == [(None, None, "one\n\ntwo\n\nthree\n\nfirst\n\nsecond\n\nthird")]


@pytest.mark.timeout(60)
def test_huge_pages_of_unclosed_or_nested_tags_stay_linear(convert: Converter) -> None:
    # Quadratic work here (a scan of the open tags per tag) would take many minutes.
    unclosed = "<table>" + "<tr><td>cell<p>para<li>item" * 40_000 + "</table>"
    _, sections = convert(unclosed)
    assert _text((None, sections)).count("item") == 40_000
    nested = "<div>" * 100_000 + "deep" + "</div>" * 100_000 + "<p>after</p>"
    _, sections = convert(nested)
    assert _text((None, sections)) == "deep\n\nafter"
    # stray end tags first do not hide the depth that follows
    stray = "</div>" * 50_000 + "<div>" * 50_000 + "deep"
    assert _text(convert(stray)) == "deep"


@pytest.mark.timeout(60)
@pytest.mark.parametrize("tag", ["menu", "pre", "figcaption"])
def test_deep_nesting_of_any_block_tag_stays_linear(convert: Converter, tag: str) -> None:
    # An HTML5 parser takes minutes on these unless the page goes to the linear pass.
    page = f"<{tag}>" * 200_000 + "deep"
    assert _text(convert(page)) == "deep"


def test_nested_and_unclosed_headings(convert: Converter) -> None:
    _, sections = convert("<h2 id=a>Outer<h3 id=b>Inner</h3></h2><p>text</p>")
    assert [(h, a, t) for h, a, t in sections][1:] == [("Outer", "a", ""), ("Inner", "b", "text")]
    _, sections = convert("<h1>Guide</h1><h2 id='i'>Install<p>Run it.</p><h2>Use</h2><p>Call.")
    assert sections[1:] == [
        ("Guide", None, ""),
        ("Install", "i", "Run it."),
        ("Use", None, "Call."),
    ]


def test_headings_inside_links_and_anchors_before_headings(convert: Converter) -> None:
    page = (
        '<a href="/x"><h2>Linked title</h2></a><p>body one</p>'
        '<a name="second"></a>\n<h2>Second</h2><p>body two</p>'
        '<section id="third"><h2>Third</h2><p>body three</p></section>'
        '<a id="not-mine"></a><p>text between</p><h2>Fourth</h2><p>four</p>'
        '<h2 data-id="x">Fifth</h2><p>five</p>'
    )
    _, sections = convert(page)
    assert [(h, a, t) for h, a, t in sections][1:] == [
        ("Linked title", None, "body one"),
        ("Second", "second", "body two"),
        ("Third", "third", "body three\n\ntext between"),
        ("Fourth", None, "four"),
        ("Fifth", None, "five"),
    ]


def test_entities_broken_or_not(convert: Converter) -> None:
    page = "<p>a &amp b &lt;tag&gt; &copy 2026 &#x41;&#66; &#99999999; &bogus; &#xZZ;"
    page += " &amp;lt; x&nbsp;y"
    _, sections = convert(page)
    assert sections == [(None, None, "a & b <tag> © 2026 AB \ufffd &bogus; &#xZZ; &lt; x y")]


def test_nul_bytes_carriage_returns_and_a_bom(convert: Converter) -> None:
    _, sections = convert("\ufeff<p>nu\x00ll</p>\r\n<p>line one\r\nline two\rthree</p>")
    assert sections == [(None, None, "null\n\nline one\nline two\nthree")]


def test_bytes_are_decoded_as_a_browser_would(convert: Converter) -> None:
    # not UTF-8 and not declared: replacement characters, never an error
    assert convert(b"<p>caf\xe9 \xff ok</p>")[1] == [(None, None, "caf\ufffd \ufffd ok")]
    declared = '<meta charset="iso-8859-1"><title>Café</title><p>crème brûlée – 5€</p>'
    assert convert(declared.encode("cp1252")) == ("Café", [(None, None, "crème brûlée – 5€")])
    http_equiv = '<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"><p>日本語'
    assert convert(http_equiv.encode("shift_jis"))[1] == [(None, None, "日本語")]
    assert convert(b"\xef\xbb\xbf<p>bom</p>")[1] == [(None, None, "bom")]
    assert convert("<p>wide</p>".encode("utf-16"))[1] == [(None, None, "wide")]
    # a codec that is not a text encoding is not obeyed
    assert convert(b'<meta charset="base64"><p>plain</p>')[1] == [(None, None, "plain")]


def test_template_noscript_script_style_and_comments(convert: Converter) -> None:
    page = (
        "<head><title>T</title><noscript><img src=x></noscript><meta name=a></head><body>"
        "<p>keep</p><template><p>tpl</p></template><noscript><p>enable js</p></noscript>"
        "<script>if (a < b) { document.write('</p>x'); }</script><style>p{}</style>"
        "<!-- <h2>commented</h2> --><svg><text>vector</text></svg><select><option>opt</select>"
        "<p>end</p>"
    )
    assert convert(page) == ("T", [(None, None, "keep\n\nend")])


def test_a_head_never_closed_keeps_the_body(convert: Converter) -> None:
    page = "<html><head><title>Doc</title><meta charset=utf-8><body><h1>Doc</h1><p>Body text.</p>"
    assert convert(page) == ("Doc", [(None, None, ""), ("Doc", None, "Body text.")])


def test_pre_keeps_its_lines_and_drops_the_first_newline(convert: Converter) -> None:
    _, sections = convert("<div>intro<pre>\nfn main() {\n    run();\n}</pre>after</div>")
    # the code as written, indentation and all, a block of its own
    assert sections == [(None, None, "intro\n\nfn main() {\n    run();\n}\n\nafter")]


def test_a_title_falls_back_to_the_first_heading(convert: Converter) -> None:
    assert convert("<h1>Only <em>heading</em>\n text</h1><p>x</p>")[0] == "Only heading text"
    assert convert("<p>no heading</p>")[0] is None
    assert convert("<body><p>x</p><title>Late\n title</title><p>y</p>") == (
        "Late title",
        [(None, None, "x\n\ny")],
    )


def test_html_to_text_puts_headings_on_their_own_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    for parser in ("regex", "selectolax"):
        if parser == "selectolax":
            pytest.importorskip("selectolax")
        monkeypatch.setattr(_html, "_converter", None)
        _html.use_parser(parser)
        title, text = _html.html_to_text(_blog(1))
        assert title == "Why we rewrote the cache | Blog"
        assert text.startswith("Why we rewrote the cache\n\nMarch 3, 2026 · 6 min read\n\n")
        assert "\n\nEviction\n\nWe evict by least recently used order" in text
    monkeypatch.setattr(_html, "_converter", None)
    with pytest.raises(ValueError, match="unknown HTML parser"):
        _html.use_parser("lxml")


# -- loading --------------------------------------------------------------------------------


def _probe(code: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return list(json.loads(out.stdout.strip().splitlines()[-1]))


def test_the_parser_loads_only_when_html_is_converted(tmp_path: Path) -> None:
    pytest.importorskip("selectolax")
    (tmp_path / "a.md").write_text("# A\n\ntext\n", encoding="utf-8")
    (tmp_path / "b.html").write_text("<h1>B</h1><p>page</p>", encoding="utf-8")
    loaded = (
        "import json, sys\n"
        "from textsearch import LocalTextSearch\n"
        "s = LocalTextSearch()\n"
        "s.index_path(sys.argv[1], extensions=('.md',))\n"
        "s.search_sync('text')\n"
        "before = 'selectolax' in sys.modules\n"
        "s.index_path(sys.argv[1])\n"
        "print(json.dumps([before, 'selectolax' in sys.modules, len(s.search_sync('page'))]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", loaded, str(tmp_path)], capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout) == [False, True, 1]


def test_without_selectolax_the_regex_pass_indexes_html(tmp_path: Path) -> None:
    (tmp_path / "b.html").write_text("<h1>B</h1><p>page &amp; text</p>", encoding="utf-8")
    code = (
        "import json, sys\n"
        "sys.modules['selectolax'] = None\n"
        "from textsearch import LocalTextSearch, _html\n"
        "s = LocalTextSearch()\n"
        "s.index_path(sys.argv[1])\n"
        "print(json.dumps([_html._converter.__module__, s.search_sync('page')[0]]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout) == ["textsearch._html._regex", "page & text"]


DEGENERATE = ["", b"", "   ", "<", "<!--", "<html>", b"\xff\xfe", "\x00", "a < b"]


@pytest.mark.parametrize("page", DEGENERATE)
def test_degenerate_input_gives_an_empty_or_plain_section(
    convert: Converter, page: str | bytes
) -> None:
    title, sections = convert(page)
    assert title is None and len(sections) == 1
    assert sections[0][2] == ("<" if page == "<" else "a < b" if page == "a < b" else "")


def test_converter_text_is_tidy_enough_to_pack_without_a_second_pass(convert: Converter) -> None:
    # split_document packs HTML sections without re-tidying each paragraph: that is only
    # right while the converters' text has no blanks at line ends and no blank-line runs.
    from textsearch.documents._split import _pack

    hostile = "<p>x \u00a0\n\n \ny</p><div>\r\n\f\v</div><p>a  \n\n\n  b\t\n</p>"
    for page in [*PAGES, hostile]:
        _, sections = convert(page)
        rows = [(h, a, 0, text) for h, a, text in sections]
        assert _pack(rows, 300, tidy=False) == _pack(rows, 300)
    # Code is kept as written, less blanks at its line ends and blank lines around it.
    _, sections = convert("<pre>\n\n  a  \n\n\n  b\t\n\n</pre><p>x</p>")
    assert sections == [(None, None, "  a\n\n\n  b\n\nx")]


def test_sphinx_and_mkdocs_code_reads_as_written(convert: Converter) -> None:
    # Pygments' line numbers (a table column, or a span before each line), the "¶" link of
    # headings and definitions, and a <div role="navigation"> are no text; code keeps its
    # indentation (every method body lost it: Python that no longer parses).
    page = (
        '<div class="related" role="navigation"><ul><li><a href="/">Django</a> »</li></ul>'
        "<div>nested <div>deeper</div></div></div>"
        '<h1>Fields<a class="headerlink" href="#f">¶</a></h1>'
        '<dl><dt id="F"><span class="pre">class</span> Field<a class="reference internal" '
        'href="_modules/f.html#F"><span class="viewcode-link"><span class="pre">[source]</span>'
        '</span></a><a class="headerlink" href="#F">¶'
        "</a></dt><dd><p>An abstract class.</p></dd></dl>"
        '<div class="highlight"><table class="highlighttable"><tr><td class="linenos">'
        '<div class="linenodiv"><pre><span class="normal">1</span>\n<span class="normal">2'
        '</span></pre></div></td><td class="code"><div class="highlight"><pre><span></span>'
        '<span class="k">def</span> <span class="nf">f</span>():\n    <span class="k">return'
        "</span> 1\n</pre></div></td></tr></table></div>"
        '<pre><span class="linenos">1</span>for x in y:\n<span class="linenos">2</span>'
        "\tprint(x)\n</pre><p>After.</p>"
    )
    _, sections = convert(page)
    assert sections == [
        (None, None, ""),
        ("Fields", None, "class Field\n\nAn abstract class.\n\ndef f():\n    return 1\n\n"
         "for x in y:\n\tprint(x)\n\nAfter."),
    ]  # fmt: skip


def test_markers_of_code_in_a_page_are_not_taken_for_ours(convert: Converter) -> None:
    # the private-use characters that mark code while a page is read, written by the page
    _, sections = convert("<p>a\ue010 b\ue011 c</p><pre>\ue011  x\ue010</pre><p>d</p>")
    assert sections == [(None, None, "a b c\n\n  x\n\nd")]


def test_a_headings_permalink_glyph_is_not_its_text(convert: Converter) -> None:
    # Node.js' docs end each heading with <a class="mark" href="#id" id="id">#</a>: the
    # heading read "Event: 'exit'#". Only a glyph standing on its own after the text goes.
    page = (
        '<h2>Event: \'exit\'<span><a class="mark" href="#ev" id="ev">#</a></span></h2><p>a</p>'
        '<h2>Using C#</h2><p>b</p><h3>Para<a href="#p">&para;</a> </h3><p>c</p>'
        "<h3>Only <code>#</code></h3><p>d</p><h3>#</h3><p>e</p>"
    )
    _, sections = convert(page)
    assert [(h, a) for h, a, _ in sections][1:] == [
        ("Event: 'exit'", "ev"),
        ("Using C#", None),
        ("Para", None),
        ("Only", None),  # the limit of the rule: a heading ending in a code "#" loses it
        ("#", None),
    ]


def test_each_code_element_of_a_pre_is_a_block(convert: Converter) -> None:
    # Node.js' pages hold an example's ESM and CommonJS forms as two <code> in one <pre>
    # (a toggle shows one): read as one text, "code: 0const process = ..." was glued.
    page = (
        '<pre><code class="language-js mjs">import x from "x";\n\nx.on(() => {\n  go();\n});'
        '</code><code class="language-js cjs">const x = require("x");</code>'
        '<button class="copy-button">copy</button></pre><p>a <code>b</code> c</p>'
    )
    _, sections = convert(page)
    assert sections == [
        (
            None,
            None,
            'import x from "x";\n\nx.on(() => {\n  go();\n});\n\nconst x = require("x");\n\na b c',
        )
    ]
