with (Math) { console.log(PI); }
export default 1;
