//! The stacked-bar chart: segments, lines and the focusable overlay, escaped.

use vram_ledger::chart::{css_color, escape_xml, stacked_bars_svg, Bar, ChartText};
use vram_ledger::ledger::bill::ComponentId;
use vram_ledger::ledger::{estimate, Scenario};
use vram_ledger::query;

fn text() -> ChartText {
    ChartText {
        axis: "GiB".into(),
        capacity: "GPU 24 GiB".into(),
        margin_line: "80 %".into(),
        component: |id| id.id().to_string(),
        formula: |f| f.to_string(),
    }
}

#[test]
fn one_segment_per_nonzero_component_with_matching_colours() {
    let s = query::parse("model=llama-3.1-8b&method=qlora").scenario;
    let bill = estimate(&s);
    let svg = stacked_bars_svg(&[Bar { label: "now".into(), bill: &bill }], bill.gpu_bytes, &text(), 640, 360);
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    let nonzero: Vec<_> = bill.components.iter().filter(|c| c.bytes > 0).collect();
    assert_eq!(svg.matches("class=\"segment\"").count(), nonzero.len());
    for c in nonzero {
        assert!(svg.contains(&format!("data-component=\"{}\"", c.id.id())), "{:?}", c.id);
        // Fills are written as #rrggbb.
        assert!(svg.to_ascii_lowercase().contains(css_color(c.id)), "{:?} colour", c.id);
    }
    assert!(svg.contains("GPU 24 GiB") && svg.contains("80 %"));
}

#[test]
fn hostile_text_is_escaped_everywhere() {
    let payload = "<img src=x onerror=alert(1)>\"'&";
    let mut s = Scenario::default();
    s.architecture.name = payload.into();
    let bill = estimate(&s);
    let t = ChartText {
        axis: payload.into(),
        capacity: payload.into(),
        margin_line: payload.into(),
        component: |_| "<b>".into(),
        formula: |_| "<i>".into(),
    };
    let svg = stacked_bars_svg(&[Bar { label: payload.into(), bill: &bill }], bill.gpu_bytes, &t, 400, 300);
    assert!(!svg.contains("<img"), "{svg}");
    assert!(!svg.contains("<b>") && !svg.contains("<i>"));
    assert!(svg.contains("&lt;img"));
    assert_eq!(escape_xml("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&apos;");
}

#[test]
fn a_bar_over_capacity_and_several_bars_still_draw() {
    let big = estimate(&query::parse("model=llama-3.1-70b&method=full").scenario);
    let small = estimate(&query::parse("model=qwen2.5-0.5b&mode=infer").scenario);
    let bars = vec![Bar { label: "before".into(), bill: &big }, Bar { label: "after".into(), bill: &small }];
    let svg = stacked_bars_svg(&bars, small.gpu_bytes, &text(), 640, 360);
    assert!(svg.contains("data-bar=\"0\"") && svg.contains("data-bar=\"1\""));
    assert!(svg.contains(&format!("data-component=\"{}\"", ComponentId::KvCache.id())));
}
