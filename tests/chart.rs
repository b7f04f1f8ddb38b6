//! The stacked-bar chart: one target per non-zero component, the capacity and 80 % lines, and
//! every text escaped — by plotters in the picture, by Yew in the targets' titles.

use vram_ledger::chart::{css_color, stacked_bars, Bar, ChartText, Shape};
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
fn one_target_per_nonzero_component_with_matching_colours() {
    let s = query::parse("model=llama-3.1-8b&method=qlora").scenario;
    let bill = estimate(&s);
    let chart = stacked_bars(&[Bar { label: "now".into(), bill: &bill }], bill.gpu_bytes, &text(), 640, 360);
    let svg = chart.svg.as_str();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    let nonzero: Vec<_> = bill.components.iter().filter(|c| c.bytes > 0).collect();
    assert_eq!(chart.targets.len(), nonzero.len());
    for (c, t) in nonzero.iter().zip(&chart.targets) {
        assert_eq!(t.component, Some(c.id));
        assert_eq!((t.class, t.bar), ("segment", Some(0)));
        // plotters writes fills as #RRGGBB.
        assert!(svg.to_ascii_lowercase().contains(css_color(c.id)), "{:?} colour", c.id);
        assert!(t.title.starts_with(&format!("now · {}: ", c.id.id())), "{}", t.title);
    }
    assert!(svg.contains("GPU 24 GiB") && svg.contains("80 %"));
}

/// The segments stack in the bill's order, bottom to top, each as tall as its share of the axis.
#[test]
fn segments_stack_from_the_bottom_in_bill_order() {
    let bill = estimate(&query::parse("model=llama-3.1-8b&mode=infer&seq=8192").scenario);
    let chart = stacked_bars(&[Bar { label: "x".into(), bill: &bill }], bill.gpu_bytes, &text(), 420, 320);
    let rects: Vec<(f64, f64)> = chart
        .targets
        .iter()
        .map(|t| match t.shape {
            Shape::Rect { y, h, .. } => (y, h),
            Shape::Circle { .. } => panic!("a bar's target is a rectangle"),
        })
        .collect();
    // Each segment's top is the next one's bottom (to the pixel), and the first sits on the axis.
    for pair in rects.windows(2) {
        assert!((pair[0].0 - (pair[1].0 + pair[1].1)).abs() <= 1.0, "{pair:?}");
    }
    // The weights (16.06 GB of a 24.0 GiB card's axis) are the tallest segment.
    let weights = chart.targets.iter().position(|t| t.component == Some(ComponentId::Weights)).expect("weights");
    assert!(rects.iter().all(|r| r.1 <= rects[weights].1));
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
    let chart = stacked_bars(&[Bar { label: payload.into(), bill: &bill }], bill.gpu_bytes, &t, 400, 300);
    let svg = chart.svg.as_str();
    assert!(!svg.contains("<img") && svg.contains("&lt;img"), "{svg}");
    // The titles are data (Yew escapes them when it draws the targets).
    assert!(chart.targets[0].title.contains("<b>"));
}

#[test]
fn a_bar_over_capacity_and_several_bars_still_draw() {
    let big = estimate(&query::parse("model=llama-3.1-70b&method=full").scenario);
    let small = estimate(&query::parse("model=qwen2.5-0.5b&mode=infer").scenario);
    let bars = vec![Bar { label: "before".into(), bill: &big }, Bar { label: "after".into(), bill: &small }];
    let chart = stacked_bars(&bars, small.gpu_bytes, &text(), 640, 360);
    assert!(chart.targets.iter().any(|t| t.bar == Some(0)) && chart.targets.iter().any(|t| t.bar == Some(1)));
    assert!(chart.targets.iter().any(|t| t.component == Some(ComponentId::KvCache)));
    // Every target lies on the picture.
    for t in &chart.targets {
        if let Shape::Rect { x, y, w, h } = t.shape {
            assert!(x >= 0.0 && y >= 0.0 && x + w <= 640.0 && y + h <= 360.0 + 1.0, "{t:?}");
        }
    }
}

/// The saved file carries each segment's title over the picture, escaped, and stays one document.
#[test]
fn the_standalone_svg_carries_the_titles() {
    let bill = estimate(&query::parse("model=llama-2-7b&mode=infer&seq=4096").scenario);
    let t = ChartText { formula: |_| "<i>&".into(), ..text() };
    let chart = stacked_bars(&[Bar { label: "x".into(), bill: &bill }], bill.gpu_bytes, &t, 420, 320);
    let svg = chart.standalone_svg();
    let svg = svg.as_str();
    assert_eq!(svg.matches("<svg").count(), 1);
    assert!(svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains(r#"data-component="kv_cache""#), "{svg}");
    assert_eq!(svg.matches("<title>").count(), chart.targets.len());
    assert!(svg.contains("&lt;i&gt;&amp;") && !svg.contains("<i>"));
}
