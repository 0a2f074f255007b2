interface Person {
  name: string;
  age number;
  email?: string;
}

export const ada: Person = { name: "Ada", age: 36 };
