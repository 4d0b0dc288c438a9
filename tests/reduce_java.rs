//! End to end: reduce a Java program with a real javac oracle.

mod common;
use common::*;
use lopper_parse::Language;
use std::fs;

const PROGRAM: &str = r#"import java.util.ArrayList;
import java.util.List;

public class Shapes {
    interface Shape { double area(); }

    static final class Circle implements Shape {
        private final double r;
        Circle(double r) { this.r = r; }
        public double area() { return Math.PI * r * r; }
    }

    static final class Rect implements Shape {
        private final double w, h;
        Rect(double w, double h) { this.w = w; this.h = h; }
        public double area() { return w * h; }
    }

    static double total(List<Shape> shapes) {
        double sum = 0;
        for (Shape s : shapes) {
            sum += s.area();
        }
        return sum;
    }

    static int count(List<Shape> shapes) {
        int n = shapes.size();
        String label = "count";
        n = label;
        return n;
    }

    public static void main(String[] args) {
        List<Shape> shapes = new ArrayList<>();
        shapes.add(new Circle(1.0));
        shapes.add(new Rect(2.0, 3.0));
        System.out.println(total(shapes) + " " + count(shapes));
    }
}
"#;

#[test]
fn javac_type_error_reduces_to_its_core() {
    require_tool("javac");
    let case = Case::new(
        "Shapes.java",
        PROGRAM,
        &format!("d=$(mktemp -d) && cp \"$1\" \"$d/Shapes.java\" && cd \"$d\" && LC_ALL=C {JAVAC} -d . Shapes.java 2>&1 | grep -q 'incompatible types: String cannot be converted to int'; r=$?; rm -rf \"$d\"; exit $r"),
    );
    assert!(case.passes(&case.program));
    let out = case.lopper(&["--timeout", "30"]);
    assert_exit(&out, 0);
    let reduced = fs::read_to_string(&case.program).unwrap();
    assert!(case.passes(&case.program), "{reduced}");
    let (before, after) = (tokens(Language::Java, PROGRAM), tokens(Language::Java, &reduced));
    // Measured: 261 -> 16 tokens; identifiers renamed to one letter (`b = d;`).
    assert!(after <= 16, "{before} -> {after}:\n{reduced}");
    assert!(reduced.contains("String") && !reduced.contains("label"), "{reduced}");
}
