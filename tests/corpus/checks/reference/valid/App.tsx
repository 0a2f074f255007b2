import React, { useState, type ReactNode } from "react";

interface Props<T> {
  items: T[];
  render: (item: T) => ReactNode;
  title?: string;
}

export function List<T extends { id: string }>({ items, render, title = "Items" }: Props<T>) {
  const [open, setOpen] = useState<boolean>(false);
  const count = items.length as number;
  return (
    <section className="list" aria-expanded={open}>
      <h2 onClick={() => setOpen(!open)}>
        {title} ({count})
      </h2>
      {open && (
        <ul>
          {items.map((item) => (
            <li key={item.id}>{render(item)}</li>
          ))}
        </ul>
      )}
      <>
        <input type="text" disabled />
        {count > 0 ? <span>{"non-empty"}</span> : null}
      </>
    </section>
  );
}

const identity = <T,>(value: T): T => value;

export default function App(): JSX.Element {
  const users = identity([{ id: "1", name: "Ada" }]);
  return <List<{ id: string; name: string }> items={users} render={(u) => <b>{u.name}</b>} />;
}
