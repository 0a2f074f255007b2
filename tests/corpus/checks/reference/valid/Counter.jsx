import { useEffect, useState } from "react";

export function Counter({ start = 0, onChange }) {
  const [count, setCount] = useState(start);
  useEffect(() => {
    onChange?.(count);
  }, [count, onChange]);
  return (
    <div className="counter" style={{ display: "flex", gap: 4 }}>
      <button onClick={() => setCount((c) => c - 1)}>-</button>
      <output>{count}</output>
      <button onClick={() => setCount((c) => c + 1)} {...{ title: "plus" }}>
        +
      </button>
      {count > 10 && <p>That&apos;s a lot &mdash; {count}!</p>}
    </div>
  );
}

export default function Page() {
  const items = ["a", "b"];
  return (
    <>
      <Counter start={1} />
      <ul>{items.map((item) => <li key={item}>{item}</li>)}</ul>
    </>
  );
}
