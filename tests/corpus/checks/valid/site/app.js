export function render() {}
